import Foundation
import NimbusSupport
import Synchronization
import XCTest

/// A thread's priority is its own: the decoder lowering itself leaves the thread that started
/// it (the core loop) where it was.
final class ThreadPriorityTests: XCTestCase {
    private struct Applied: Sendable {
        var applied = false
        var nice: Int32 = -1
        var slice: UInt64?
        /// The slice of a thread started by the one that applied the priority.
        var childSlice: UInt64?
    }

    /// Applies `priority` on a new thread, first niced by `startingNice` if given (as a
    /// daemon started by `nice` or a service file's `Nice=`).
    private func apply(_ priority: ThreadPriority, startingNice: Int32? = nil) -> Applied {
        let result = Mutex<Applied?>(nil)
        let thread = Thread {
            if let startingNice { _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, startingNice) }
            var applied = Applied(applied: priority.applyToCurrentThread(), nice: ThreadPriority.currentNice, slice: ThreadPriority.currentSlice)
            let child = Mutex<UInt64??>(nil)
            let started = Thread { child.withLock { $0 = .some(ThreadPriority.currentSlice) } }
            started.start()
            while child.withLock({ $0 == nil }) { usleep(1_000) }
            applied.childSlice = child.withLock { $0 } ?? nil
            result.withLock { $0 = applied }
        }
        thread.start()
        XCTAssertTrue(waitFor { result.withLock { $0 != nil } }, "the thread never ran")
        return result.withLock { $0 } ?? Applied()
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
        let playback = apply(.playback), background = apply(.background)
        XCTAssertTrue(playback.applied)
        XCTAssertTrue(background.applied)
        XCTAssertEqual(playback.nice, before + 5)
        XCTAssertEqual(background.nice, before + 10)
        XCTAssertEqual(ThreadPriority.currentNice, before, "the starting thread kept its priority")
    }

    /// A daemon started at nice 3 keeps the order above it: the decoder at 8, scans at 13,
    /// the core loop where it was; nothing goes past 19.
    func testPrioritiesAreRelativeToTheOneTheThreadStartedWith() {
        let start = max(ThreadPriority.currentNice, 3)
        XCTAssertEqual(apply(.playback, startingNice: start).nice, start + 5)
        XCTAssertEqual(apply(.background, startingNice: start).nice, start + 10)
        XCTAssertEqual(apply(.answering, startingNice: start).nice, start)
        XCTAssertEqual(apply(.background, startingNice: 15).nice, 19)
    }

    /// The core loop's short slice where the kernel has slices (Linux 6.12 and later report
    /// the one asked for), never passed on to the threads it starts.
    func testTheCoreLoopsShortSliceIsItsOwn() throws {
        let answering = apply(.answering), playback = apply(.playback)
        XCTAssertTrue(answering.applied)
        XCTAssertEqual(answering.nice, ThreadPriority.currentNice)
        let defaultSlice = try XCTUnwrap(playback.slice, "sched_getattr failed")
        try XCTSkipIf(answering.slice == defaultSlice, "this kernel has no per-thread slices (before Linux 6.12)")
        XCTAssertEqual(answering.slice, ThreadPriority.answering.slice)
        XCTAssertEqual(answering.childSlice, defaultSlice, "a thread started by the core loop begins with the default slice")
    }
}
