import NimbusCore
import XCTest

/// The sleep timer's value, driven with a clock of our own.
final class SleepTimerTests: XCTestCase {
    func testItCountsThenFadesThenPausesAndRestoresTheLevel() {
        var timer = SleepTimer(fade: 10)
        XCTAssertEqual(timer.request(.after(seconds: 60), now: 100), [.announce])
        XCTAssertEqual(timer.secondsLeft(now: 100), 60)
        XCTAssertEqual(timer.secondsLeft(now: 130.2), 30, "rounded up: a timer never shows 0 before it fires")
        XCTAssertEqual(timer.tick(now: 159.9), [])
        XCTAssertEqual(timer.nextTick(now: 120), 160, "it sleeps until the deadline")
        XCTAssertEqual(timer.tick(now: 160), [.level(1)])
        XCTAssertEqual(timer.secondsLeft(now: 160), 0, "fading")
        XCTAssertEqual(timer.tick(now: 165), [.level(0.5)])
        XCTAssertEqual(timer.nextTick(now: 165, step: 0.1), 165.1)
        XCTAssertEqual(timer.tick(now: 170), [.level(0), .pause, .level(1), .announce])
        XCTAssertFalse(timer.isSet)
        XCTAssertNil(timer.secondsLeft(now: 170))
        XCTAssertEqual(timer.tick(now: 200), [], "spent")
    }

    func testALateWakeUpStillEndsTheFade() {
        var timer = SleepTimer(fade: 10)
        _ = timer.request(.after(seconds: 5), now: 0)
        XCTAssertEqual(timer.tick(now: 30), [.level(0), .pause, .level(1), .announce], "a machine that slept through it pauses at once")
    }

    func testNoFadePausesAtTheDeadline() {
        var timer = SleepTimer(fade: 0)
        _ = timer.request(.after(seconds: 5), now: 0)
        XCTAssertEqual(timer.tick(now: 5), [.level(0), .pause, .level(1), .announce])
    }

    func testCancellingOrPausingDuringTheFadeBringsTheLevelBack() {
        var timer = SleepTimer(fade: 10)
        _ = timer.request(.after(seconds: 1), now: 0)
        _ = timer.tick(now: 4)
        XCTAssertEqual(timer.request(.cancel, now: 4), [.level(1), .announce])
        _ = timer.request(.after(seconds: 1), now: 10)
        _ = timer.tick(now: 12)
        XCTAssertEqual(timer.playbackHalted(), [.level(1), .announce], "someone paused: the fade is over")
        XCTAssertFalse(timer.isSet)
        _ = timer.request(.after(seconds: 100), now: 20)
        XCTAssertEqual(timer.playbackHalted(), [], "a count goes on through a pause")
        XCTAssertTrue(timer.isSet)
    }

    func testEndOfSongHoldsTheNextSongUntilTheSongEnds() {
        var timer = SleepTimer(fade: 10)
        XCTAssertEqual(timer.request(.endOfSong, now: 0), [.stopAfterCurrent(true), .announce])
        XCTAssertNil(timer.nextTick(now: 0), "nothing to wake for: the player says when the song ends")
        XCTAssertEqual(timer.songEnded(), [.stopAfterCurrent(false), .announce])
        XCTAssertEqual(timer.songEnded(), [], "once")
        _ = timer.request(.endOfSong, now: 0)
        XCTAssertEqual(timer.request(.after(seconds: 60), now: 1), [.stopAfterCurrent(false), .announce], "a count replaces it")
        XCTAssertEqual(timer.request(.endOfSong, now: 2), [.stopAfterCurrent(true), .announce])
        XCTAssertEqual(timer.request(.cancel, now: 3), [.stopAfterCurrent(false), .announce])
    }
}
