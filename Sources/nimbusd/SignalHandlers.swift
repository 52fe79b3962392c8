import Dispatch
import Glibc

/// SIGTERM and SIGINT request a clean shutdown. Dispatch signal sources turn the signal into an
/// ordinary callback on a queue, so no work happens inside a real signal handler.
///
/// Installed before any socket is bound, so a signal that arrives as soon as clients can
/// connect is never lost. On Linux libdispatch installs its own handler when a source is
/// resumed; setting SIG_IGN first (the macOS idiom) opened a window where signals vanished.
enum SignalHandlers {
    nonisolated(unsafe) private static var sources: [any DispatchSourceSignal] = []

    static func install(_ onSignal: @escaping @Sendable (String) -> Void) {
        for (number, name) in [(SIGTERM, "SIGTERM"), (SIGINT, "SIGINT")] {
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { @Sendable in onSignal(name) }
            source.resume()
            sources.append(source)
        }
    }
}
