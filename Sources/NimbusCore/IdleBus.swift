import NimbusModel
import NimbusSupport

/// Receives idle events; implemented by client sessions.
@CoreActor
public protocol IdleListener: AnyObject {
    func idleEventsOccurred(_ events: IdleEvents)
}

/// Collects idle events from the whole daemon and hands them to every listener once per loop
/// iteration, so a burst (a `command_list` of 100 adds, a finishing update) wakes each idle
/// client with one `changed:` line per subsystem instead of one response per change.
@CoreActor
public final class IdleBus {
    private var listeners: [ObjectIdentifier: any IdleListener] = [:]
    private var pending: IdleEvents = []
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

    public func emit(_ events: IdleEvents) {
        guard !events.isEmpty else { return }
        let wasEmpty = pending.isEmpty
        pending.formUnion(events)
        if wasEmpty { reactor.atEndOfIteration { [weak self] in self?.deliver() } }
    }

    private func deliver() {
        let events = pending
        pending = []
        for listener in listeners.values { listener.idleEventsOccurred(events) }
    }
}
