import Foundation
import NimbusHarness
import NimbusInput
@testable import NimbusOffline
@testable import NimbusStorage
import NimbusSupport
import XCTest

/// Every transition of one song's offline download, without threads or a network.
final class SongDownloadTests: XCTestCase {
    private struct NoBytes: RemoteSource {
        func fetch(_ range: Range<Int64>, purpose: FetchPurpose, into sink: (UnsafeRawBufferPointer) -> Bool) throws(RemoteError) {
            throw RemoteError(.transient, "no network in these tests")
        }
    }

    private let directory = TemporaryDirectory("nimbus-song-download")
    private let pin = Pin.ID(playlist: false, name: "disk/A")

    private func file(size: Int64 = 1000) -> OfflineFile {
        let cache = RangeCache(directory: directory.file("cache"), budget: 1 << 20, logger: Logger(level: .error) { _ in })
        return OfflineFile(
            account: "disk", key: CacheKey(account: "disk", fileID: "a", version: "1"), size: size, health: AccountHealth(path: nil),
            cache: cache, source: NoBytes())
    }

    private func described(held: Bool = false) -> SongDownload {
        var song = SongDownload(uri: "disk/A/1.flac", pins: [pin], held: held)
        song.described(file())
        return song
    }

    func testQueuedUntilDescribedThenDueThenDownloadingThenCompleted() {
        var song = SongDownload(uri: "disk/A/1.flac", pins: [pin], held: false)
        XCTAssertEqual(song.state, .queued)
        XCTAssertFalse(song.isDue(now: 0), "not described yet")
        song.described(file())
        XCTAssertTrue(song.isDue(now: 0))
        song.start()
        XCTAssertEqual(song.state, .downloading)
        XCTAssertFalse(song.isDue(now: 0), "one worker at a time")
        XCTAssertTrue(song.progressed(to: 400, rate: nil))
        XCTAssertFalse(song.progressed(to: 400, rate: nil), "nothing new to show")
        XCTAssertTrue(song.progressed(to: 500, rate: 1000))
        XCTAssertEqual(song.speed, 1000)
        XCTAssertTrue(song.progressed(to: 600, rate: 2000))
        XCTAssertEqual(song.speed, 1400, accuracy: 0.001, "smoothed")
        song.completed()
        XCTAssertEqual(song.state, .completed)
        XCTAssertEqual(song.done, song.total)
        XCTAssertEqual(song.speed, 0)
    }

    func testAFailureIsRetriedLaterWithDoublingDelays() {
        var song = described()
        song.start()
        XCTAssertEqual(song.failed("HTTP 503", now: 100), 15)
        XCTAssertEqual(song.state, .failed)
        XCTAssertEqual(song.message, "HTTP 503")
        XCTAssertFalse(song.isDue(now: 114))
        XCTAssertTrue(song.isDue(now: 115))
        song.start()
        XCTAssertEqual(song.failed("HTTP 503", now: 200), 30)
        for _ in 0..<10 {
            song.start()
            _ = song.failed("HTTP 503", now: 0)
        }
        song.start()
        XCTAssertEqual(song.failed("HTTP 503", now: 0), 600, "at most ten minutes")
        song.retryNow()
        XCTAssertEqual(song.state, .queued)
        XCTAssertEqual(song.attempts, 0)
        XCTAssertNil(song.retryAt)
    }

    func testPauseStopsARunningDownloadAndHoldsAQueuedOne() {
        var running = described()
        running.start()
        running.hold()
        XCTAssertTrue(running.stopRequested, "the worker is asked to stop")
        XCTAssertEqual(running.state, .downloading, "until it has stopped")
        running.stopped(held: true)
        XCTAssertEqual(running.state, .paused)
        XCTAssertFalse(running.stopRequested)
        running.release()
        XCTAssertEqual(running.state, .queued)

        var queued = described()
        queued.hold()
        XCTAssertEqual(queued.state, .paused)
        XCTAssertFalse(queued.isDue(now: 0))
        XCTAssertEqual(SongDownload(uri: "x", pins: [pin], held: true).state, .paused, "a song of a paused pin starts held")
    }

    func testWaitingForSpaceIsShownOnceAndIsDueAgain() {
        var song = described()
        XCTAssertTrue(song.waitForSpace("needs 1.0 KiB more"))
        XCTAssertFalse(song.waitForSpace("needs 1.0 KiB more"), "nothing new")
        XCTAssertTrue(song.waitForSpace("needs 2.0 KiB more"))
        XCTAssertEqual(song.state, .waitingForSpace)
        XCTAssertTrue(song.isDue(now: 0), "looked at again")
    }

    func testSigningOutStopsDropsPartialBytesAndSigningInQueuesAgain() {
        var running = described()
        running.start()
        _ = running.progressed(to: 300, rate: nil)
        XCTAssertFalse(running.signOut(account: "disk"), "a running download stops first")
        XCTAssertTrue(running.stopRequested)
        running.stoppedSignedOut(account: "disk")
        XCTAssertEqual(running.state, .failed)
        XCTAssertEqual(running.done, 0, "its partial bytes go")
        XCTAssertEqual(running.message, "sign-in needed — run: nimbus authorize disk")
        XCTAssertFalse(running.isDue(now: .max), "it waits for a sign-in, not a timer")
        XCTAssertTrue(running.signIn(held: false))
        XCTAssertEqual(running.state, .queued)
        XCTAssertFalse(running.signIn(held: false), "signed in already")

        var partial = described()
        _ = partial.progressed(to: 10, rate: nil)
        XCTAssertTrue(partial.signOut(account: "disk"), "a queued song with bytes drops them")
        XCTAssertFalse(partial.signOut(account: "disk"), "once")

        var done = described()
        done.start()
        done.completed()
        XCTAssertFalse(done.signOut(account: "disk"), "a completed song stays and plays")
        XCTAssertEqual(done.state, .completed)
    }

    func testASongNotFoundWaitsForARetry() {
        var song = SongDownload(uri: "disk/A/gone.flac", pins: [pin], held: false)
        song.notFound()
        XCTAssertEqual(song.state, .failed)
        XCTAssertEqual(song.message, "not found on its cloud account")
        XCTAssertTrue(song.unresolvable)
        song.retryNow()
        XCTAssertEqual(song.state, .queued)
        XCTAssertFalse(song.unresolvable)
        XCTAssertNil(song.message)
    }

    func testAStopIsOnlyRequestedOfARunningDownload() {
        var queued = described()
        XCTAssertFalse(queued.requestStop())
        queued.start()
        XCTAssertTrue(queued.requestStop())
        queued.stopped(held: false)
        XCTAssertEqual(queued.state, .queued)
    }
}
