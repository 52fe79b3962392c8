import Synchronization

/// The wake-ups the core's control calls owe the player's threads, held back while the core
/// is still answering clients.
///
/// Why: a thread woken from a long sleep runs before the thread that woke it. When `play`
/// woke the idle decoder and the outputs, a daemon confined to one core answered the idle
/// clients only after their first burst of work — a wake-up p99 of 3.3 ms after `play` even
/// with the decoder at a lower priority. Held, the state they will read changes at once
/// (under their locks, in order, so a `stop` later in the same command list still wins) and
/// only the broadcasts wait until the answers are written; the threads find everything there
/// when they wake. A thread that wakes early for another reason sees the same state.
public final class HeldWakes: Sendable {
    private struct State {
        var holding = false
        var pending: [@Sendable () -> Void] = []
    }

    private let state = Mutex(State())

    public init() {}

    /// Runs `wake` now, or when `release` comes if wake-ups are held.
    func send(_ wake: @escaping @Sendable () -> Void) {
        let now = state.withLock { state in
            guard state.holding else { return true }
            state.pending.append(wake)
            return false
        }
        if now { wake() }
    }

    /// Holds wake-ups until `release`, which the caller must make sure comes; false if they
    /// were held already (a release is due then).
    @discardableResult
    public func hold() -> Bool {
        state.withLock { state in
            defer { state.holding = true }
            return !state.holding
        }
    }

    /// Sends the held wake-ups, in the order they were owed, and stops holding.
    public func release() {
        let pending = state.withLock { state in
            state.holding = false
            defer { state.pending = [] }
            return state.pending
        }
        for wake in pending { wake() }
    }
}
