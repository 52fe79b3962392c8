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
        let wasEmpty = pending.isEmpty && pendingByPartition.isEmpty
        if let partition {
            pendingByPartition[partition, default: []].formUnion(events)
        } else {
            pending.formUnion(events)
        }
        if wasEmpty { reactor.atEndOfIteration { [weak self] in self?.deliver() } }
    }

    private func deliver() {
        let events = pending
        let byPartition = pendingByPartition
        pending = []
        pendingByPartition = [:]
        for listener in listeners.values {
            var mine = events
            if !byPartition.isEmpty, let extra = byPartition[listener.idlePartition] { mine.formUnion(extra) }
            if !mine.isEmpty { listener.idleEventsOccurred(mine) }
        }
    }
}
