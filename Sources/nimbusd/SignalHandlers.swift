import Dispatch
import Glibc

/// SIGTERM and SIGINT request a clean shutdown. Dispatch signal sources turn the signal into an
/// ordinary callback on a queue, so no work happens inside a real signal handler.
enum SignalHandlers {
    nonisolated(unsafe) private static var sources: [any DispatchSourceSignal] = []

    static func install(_ onSignal: @escaping @Sendable (String) -> Void) {
        for (number, name) in [(SIGTERM, "SIGTERM"), (SIGINT, "SIGINT")] {
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { @Sendable in onSignal(name) }
            source.resume()
            sources.append(source)
        }
    }
}
