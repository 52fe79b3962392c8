import Foundation
import Glibc

/// Lets a control thread break a reader's wait for network bytes, so `stop`, `seek` or a new
/// song reach a decoder that is stuck on an unreachable server at once instead of after the
/// fetch gives up (up to a minute of retries).
///
/// It belongs to a thread rather than to a stream, the way a Task's cancellation reaches code
/// that never took a parameter for it: the decoder thread installs one at start, and a cache
/// read anywhere below libFLAC's or libmpg123's callbacks finds it with `current`.
public final class ReadInterrupt: @unchecked Sendable {
    // Invariant: `pending` and `wake` are only touched with `lock` held; `wake` is called
    // after releasing it, so it may take the waiting reader's lock.
    private let lock = NSLock()
    private var pending = false
    private var wake: (@Sendable () -> Void)?

    public init() {}

    /// Breaks the current wait (if any) and every wait until `reset()`.
    public func interrupt() {
        let wake = lock.withLock {
            pending = true
            return self.wake
        }
        wake?()
    }

    public func reset() { lock.withLock { pending = false } }

    public var isPending: Bool { lock.withLock { pending } }

    /// Called by a reader about to wait (with its own lock held), and with nil when done.
    func whileWaiting(wake: (@Sendable () -> Void)?) { lock.withLock { self.wake = wake } }

    /// The interrupt installed on the calling thread, if any.
    public static var current: ReadInterrupt? {
        guard let pointer = pthread_getspecific(key) else { return nil }
        return Unmanaged<ReadInterrupt>.fromOpaque(pointer).takeUnretainedValue()
    }

    /// Installs `interrupt` for the rest of the calling thread's life (it is kept alive here).
    public static func install(_ interrupt: ReadInterrupt) {
        pthread_setspecific(key, Unmanaged.passRetained(interrupt).toOpaque())
    }

    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        pthread_key_create(&key) { pointer in
            if let pointer { Unmanaged<ReadInterrupt>.fromOpaque(pointer).release() }
        }
        return key
    }()
}

extension InputError {
    /// What a read interrupted by a command throws; never shown to users.
    public static let interrupted = InputError("interrupted")
}
