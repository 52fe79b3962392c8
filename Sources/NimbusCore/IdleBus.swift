import NimbusModel
import NimbusSupport

/// Receives idle events; implemented by client sessions.
@CoreActor
public protocol IdleListener: AnyObject {
    func idleEventsOccurred(_ events: IdleEvents)
    /// The partition whose player, queue, options, mixer and output events this listener gets.
    var idlePartition: String { get }
}

/// Collects idle events from the whole daemon and hands them to every listener once per loop
/// iteration, so a burst (a `command_list` of 100 adds, a finishing update) wakes each idle
/// client with one `changed:` line per subsystem instead of one response per change.
@CoreActor
public final class IdleBus {
    private var listeners: [ObjectIdentifier: any IdleListener] = [:]
    private var pending: IdleEvents = []
    private var pendingByPartition: [String: IdleEvents] = [:]
    private var afterAnswers: [@CoreActor () -> Void] = []
    private var deliveryScheduled = false
    private let reactor: Reactor

    public init(reactor: Reactor) {
        self.reactor = reactor
    }

    public func add(_ listener: any IdleListener) {
        listeners[ObjectIdentifier(listener)] = listener
    }

    public func remove(_ listener: any IdleListener) {
        listeners[ObjectIdentifier(listener)] = nil
    }

    /// Events for every client, or (with `partition`) only for the clients of that partition.
    public func emit(_ events: IdleEvents, partition: String? = nil) {
        guard !events.isEmpty else { return }
        if let partition {
            pendingByPartition[partition, default: []].formUnion(events)
        } else {
            pending.formUnion(events)
        }
        scheduleDelivery()
    }

    /// Runs `action` once the idle clients' answers of this loop iteration have been written.
    /// For work that wakes another thread (the output resuming): on a box whose daemon is
    /// confined to one core, a thread woken before the answers are out preempts the core loop,
    /// and every idle client hears of the change a fraction of a millisecond later.
    public func afterAnswers(_ action: @escaping @CoreActor () -> Void) {
        afterAnswers.append(action)
        scheduleDelivery()
    }

    private func scheduleDelivery() {
        guard !deliveryScheduled else { return }
        deliveryScheduled = true
        reactor.atEndOfIteration { [weak self] in self?.deliver() }
    }

    private func deliver() {
        deliveryScheduled = false
        let events = pending
        let byPartition = pendingByPartition
        pending = []
        pendingByPartition = [:]
        for listener in listeners.values {
            var mine = events
            if !byPartition.isEmpty, let extra = byPartition[listener.idlePartition] { mine.formUnion(extra) }
            if !mine.isEmpty { listener.idleEventsOccurred(mine) }
        }
        guard !afterAnswers.isEmpty else { return }
        // The listeners' answers were scheduled just now, so these run after them.
        let actions = afterAnswers
        afterAnswers = []
        reactor.atEndOfIteration { for action in actions { action() } }
    }
}
