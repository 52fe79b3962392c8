import Foundation
import NimbusSupport
import Synchronization
import XCTest

/// A thread's priority is its own: the decoder lowering itself leaves the thread that started
/// it (the core loop) where it was.
final class ThreadPriorityTests: XCTestCase {
    private func nice(after priority: ThreadPriority) -> (applied: Bool, nice: Int32) {
        let result = Mutex<(Bool, Int32)?>(nil)
        let thread = Thread {
            let applied = priority.applyToCurrentThread()
            result.withLock { $0 = (applied, ThreadPriority.currentNice) }
        }
        thread.start()
        XCTAssertTrue(waitFor { result.withLock { $0 != nil } }, "the thread never ran")
        return result.withLock { $0 } ?? (false, -1)
    }

    private func waitFor(_ condition: () -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(5)
        while !condition() {
            if Date() > deadline { return false }
            usleep(1_000)
        }
        return true
    }

    func testPlaybackRanksBelowTheCoreLoopAndAboveBackgroundWork() {
        let before = ThreadPriority.currentNice
        let playback = nice(after: .playback), background = nice(after: .background)
        XCTAssertTrue(playback.applied)
        XCTAssertTrue(background.applied)
        XCTAssertEqual(playback.nice, before + 5)
        XCTAssertEqual(background.nice, before + 10)
        XCTAssertEqual(ThreadPriority.currentNice, before, "the starting thread kept its priority")
    }
}
