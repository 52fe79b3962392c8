import CLinux
import Glibc

/// Socket readiness, timers and end-of-iteration hooks of the core event loop.
///
/// Watches are keyed by fd plus a generation, so a readiness event that was already queued for
/// a descriptor closed earlier in the same iteration never reaches a newer owner of that fd.
@CoreActor
public final class Reactor {
    public typealias Handler = @CoreActor (_ events: UInt32) -> Void

    public struct Interest: OptionSet, Sendable {
        public let rawValue: UInt32
        public init(rawValue: UInt32) { self.rawValue = rawValue }
        public static let read = Interest(rawValue: EPOLLIN.rawValue | EPOLLRDHUP.rawValue)
        public static let write = Interest(rawValue: EPOLLOUT.rawValue)
    }

    private struct Watch {
        let generation: UInt32
        let handler: Handler
    }

    private let epollFD: Int32
    private var watches: [Int32: Watch] = [:]
    private var generation: UInt32 = 0
    private var timers = TimerQueue()
    private var iterationHooks: [@CoreActor () -> Void] = []

    nonisolated init(epollFD: Int32) {
        self.epollFD = epollFD
    }

    // MARK: descriptors

    public func watch(fd: Int32, interest: Interest, handler: @escaping Handler) throws(SystemError) {
        generation &+= 1
        var event = epoll_event()
        event.events = interest.rawValue
        event.data.u64 = UInt64(UInt32(bitPattern: fd)) | UInt64(generation) << 32
        guard epoll_ctl(epollFD, EPOLL_CTL_ADD, fd, &event) == 0 else { throw SystemError("epoll_ctl") }
        watches[fd] = Watch(generation: generation, handler: handler)
    }

    public func change(fd: Int32, interest: Interest) {
        guard let watch = watches[fd] else { return }
        var event = epoll_event()
        event.events = interest.rawValue
        event.data.u64 = UInt64(UInt32(bitPattern: fd)) | UInt64(watch.generation) << 32
        _ = epoll_ctl(epollFD, EPOLL_CTL_MOD, fd, &event)
    }

    /// Stops watching; the caller still owns (and closes) the descriptor.
    public func unwatch(fd: Int32) {
        guard watches.removeValue(forKey: fd) != nil else { return }
        _ = epoll_ctl(epollFD, EPOLL_CTL_DEL, fd, nil)
    }

    func dispatch(key: UInt64, events: UInt32) {
        let fd = Int32(bitPattern: UInt32(truncatingIfNeeded: key))
        guard let watch = watches[fd], watch.generation == UInt32(key >> 32) else { return }
        watch.handler(events)
    }

    // MARK: timers

    /// Runs `action` once after `delay` unless cancelled first.
    @discardableResult
    public func schedule(after delay: Duration, _ action: @escaping @CoreActor () -> Void) -> TimerID {
        timers.insert(deadline: MonotonicClock.now() &+ delay.nanoseconds, action: action)
    }

    public func cancel(_ timer: TimerID) {
        timers.cancel(timer)
    }

    // MARK: end of iteration

    /// Runs `action` after every socket event of this loop iteration has been handled — how a
    /// burst of changes reaches idle clients as one notification.
    public func atEndOfIteration(_ action: @escaping @CoreActor () -> Void) {
        iterationHooks.append(action)
    }

    func endIteration() {
        for action in timers.popDue(now: MonotonicClock.now()) { action() }
        while !iterationHooks.isEmpty {
            let hooks = iterationHooks
            iterationHooks.removeAll()
            for hook in hooks { hook() }
        }
    }

    func timeoutMillis() -> Int32 {
        if !iterationHooks.isEmpty { return 0 }
        guard let deadline = timers.nextDeadline else { return -1 }
        let now = MonotonicClock.now()
        if deadline <= now { return 0 }
        return Int32(clamping: (deadline - now + 999_999) / 1_000_000)
    }
}
