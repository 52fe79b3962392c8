import Glibc
import NimbusSupport
import Synchronization
import NimbusHarness
import XCTest

final class EventLoopTests: XCTestCase {
    func testTasksForCoreActorRunOnTheLoopThread() throws {
        let onLoop = try onCore { CoreActor.loop.isCurrent }
        XCTAssertTrue(onLoop)
        XCTAssertFalse(CoreActor.loop.isCurrent)
    }

    func testTimersFireInDeadlineOrderAndCancelledOnesDoNot() throws {
        let fired = Mutex<[Int]>([])
        let done = DispatchSemaphore(value: 0)
        try onCore {
            let reactor = CoreActor.loop.reactor
            reactor.schedule(after: .milliseconds(30)) { fired.withLock { $0.append(3) } }
            reactor.schedule(after: .milliseconds(10)) { fired.withLock { $0.append(1) } }
            let cancelled = reactor.schedule(after: .milliseconds(20)) { fired.withLock { $0.append(99) } }
            reactor.schedule(after: .milliseconds(20)) { fired.withLock { $0.append(2) } }
            reactor.cancel(cancelled)
            reactor.schedule(after: .milliseconds(40)) { done.signal() }
        }
        XCTAssertEqual(done.wait(timeout: .now() + 5), .success)
        XCTAssertEqual(fired.withLock { $0 }, [1, 2, 3])
    }

    func testEndOfIterationHooksRunAfterTheCurrentWork() throws {
        let log = Mutex<[String]>([])
        let done = DispatchSemaphore(value: 0)
        try onCore {
            CoreActor.loop.reactor.atEndOfIteration {
                log.withLock { $0.append("hook") }
                done.signal()
            }
            log.withLock { $0.append("work") }
        }
        XCTAssertEqual(done.wait(timeout: .now() + 5), .success)
        XCTAssertEqual(log.withLock { $0 }, ["work", "hook"])
    }

    func testReadinessOfAWatchedDescriptorIsDelivered() throws {
        var fds: [Int32] = [0, 0]
        XCTAssertEqual(pipe(&fds), 0)
        defer { close(fds[0]); close(fds[1]) }
        let readable = DispatchSemaphore(value: 0)
        let readFD = fds[0]
        try onCore {
            try CoreActor.loop.reactor.watch(fd: readFD, interest: .read) { _ in
                CoreActor.loop.reactor.unwatch(fd: readFD)
                readable.signal()
            }
        }
        var byte: UInt8 = 1
        XCTAssertEqual(write(fds[1], &byte, 1), 1)
        XCTAssertEqual(readable.wait(timeout: .now() + 5), .success)
    }

    func testWorkPostedFromManyThreadsAllRuns() throws {
        let counter = Counter()
        let group = DispatchGroup()
        for _ in 0..<1000 {
            group.enter()
            Task.detached {
                await counter.bumpOnLoop()
                group.leave()
            }
        }
        XCTAssertEqual(group.wait(timeout: .now() + 10), .success)
        XCTAssertEqual(counter.value, 1000)
    }
}

private final class Counter: Sendable {
    private let count = Mutex(0)
    var value: Int { count.withLock { $0 } }

    @CoreActor func bumpOnLoop() {
        precondition(CoreActor.loop.isCurrent)
        count.withLock { $0 += 1 }
    }
}
