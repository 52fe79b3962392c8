import Foundation
import CLinux
import Glibc
import Synchronization

/// The one thread that runs every client session and all core state, like MPD's main loop.
///
/// It is the serial executor behind `CoreActor`, so `@CoreActor` code written anywhere runs
/// here without a hop, and work posted from decoder, output or update threads arrives as
/// ordinary actor jobs. Readiness of sockets, timers and end-of-iteration hooks are served by
/// the `Reactor`, which only this thread touches.
public final class EventLoop: SerialExecutor, Sendable {
    private let epollFD: Int32
    private let wakeFD: Int32
    private let jobs = Mutex<[UnownedJob]>([])
    private let wakePending = Atomic<Bool>(false)
    private let ownerThread = Atomic<UInt>(0)
    public let reactor: Reactor

    public init(name: String) {
        epollFD = epoll_create1(Int32(EPOLL_CLOEXEC))
        wakeFD = eventfd(0, Int32(EFD_NONBLOCK | EFD_CLOEXEC))
        precondition(epollFD >= 0 && wakeFD >= 0, "cannot create the event loop: \(String(cString: strerror(errno)))")
        reactor = Reactor(epollFD: epollFD)
        var event = epoll_event()
        event.events = EPOLLIN.rawValue
        event.data.u64 = UInt64.max
        _ = epoll_ctl(epollFD, EPOLL_CTL_ADD, wakeFD, &event)
        DaemonThread.start(name: name, stackSize: 4 << 20) { [self] in run() }
    }

    public var isCurrent: Bool {
        let owner = ownerThread.load(ordering: .acquiring)
        return owner != 0 && pthread_equal(pthread_t(owner), pthread_self()) != 0
    }

    public func enqueue(_ job: consuming ExecutorJob) {
        let unowned = UnownedJob(job)
        jobs.withLock { $0.append(unowned) }
        if !isCurrent { wake() }
    }

    public func checkIsolated() {
        precondition(isCurrent, "expected to run on the core event loop")
    }

    public func isIsolatingCurrentContext() -> Bool? { isCurrent }

    private func wake() {
        guard !wakePending.exchange(true, ordering: .acquiringAndReleasing) else { return }
        var one: UInt64 = 1
        _ = write(wakeFD, &one, 8)
    }

    private func drainWake() {
        var value: UInt64 = 0
        _ = read(wakeFD, &value, 8)
        wakePending.store(false, ordering: .releasing)
    }

    private func runJobs() {
        // Bounded batches keep a flood of posted work from starving socket readiness.
        for _ in 0..<64 {
            let batch = jobs.withLock { queue -> [UnownedJob] in
                defer { queue.removeAll(keepingCapacity: true) }
                return queue
            }
            if batch.isEmpty { return }
            for job in batch { job.runSynchronously(on: asUnownedSerialExecutor()) }
        }
    }

    private var hasJobs: Bool { jobs.withLock { !$0.isEmpty } }

    private func run() {
        ownerThread.store(UInt(pthread_self()), ordering: .releasing)
        ThreadPriority.answering.applyToCurrentThread()
        let capacity: Int32 = 256
        let events = UnsafeMutablePointer<epoll_event>.allocate(capacity: Int(capacity))
        defer { events.deallocate() }
        var ready: [(key: UInt64, events: UInt32)] = []
        ready.reserveCapacity(Int(capacity))
        while true {
            ready.removeAll(keepingCapacity: true)
            let timeout = hasJobs ? 0 : CoreActor.assumeIsolatedOnLoop { reactor.timeoutMillis() }
            let count = epoll_wait(epollFD, events, capacity, timeout)
            if count < 0 && errno != EINTR {
                fatalError("epoll_wait: \(String(cString: strerror(errno)))")
            }
            for index in 0..<max(0, Int(count)) {
                if events[index].data.u64 == UInt64.max {
                    drainWake()
                } else {
                    ready.append((events[index].data.u64, events[index].events))
                }
            }
            if !ready.isEmpty {
                let batch = ready
                CoreActor.assumeIsolatedOnLoop {
                    for event in batch { reactor.dispatch(key: event.key, events: event.events) }
                }
            }
            runJobs()
            CoreActor.assumeIsolatedOnLoop { reactor.endIteration() }
        }
    }
}
