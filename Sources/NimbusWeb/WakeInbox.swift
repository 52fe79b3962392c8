import CWebSockets
import Synchronization

/// Items posted from other threads for the web thread, which libwebsockets wakes with its
/// one thread-safe call (`lws_cancel_service`); it takes them on `EVENT_WAIT_CANCELLED`.
final class WakeInbox<Item: Sendable>: Sendable {
    private struct State: @unchecked Sendable {
        // Invariant: only touched inside `state.withLock`; `context` is libwebsockets' and
        // used only for `lws_cancel_service`, the one call it allows from any thread.
        var items: [Item] = []
        var context: OpaquePointer?
    }
    private let state = Mutex(State())

    func open(_ context: OpaquePointer) { state.withLock { $0.context = context } }
    func close() { state.withLock { $0.context = nil } }

    /// Queues an item and wakes the web thread; dropped once the server stopped.
    func post(_ item: Item) {
        state.withLock { state in
            guard let context = state.context else { return }
            state.items.append(item)
            lws_cancel_service(context)
        }
    }

    func take() -> [Item] { state.withLock { state in defer { state.items = [] }; return state.items } }
}
