import NimbusCore
import NimbusProtocol
import NimbusSupport

/// The sleep timer (Nimbus's own; MPD has none): `sleeptimer SECONDS|end|0`, and
/// mpdscheduler's channel convention for clients that can only send messages.
@CoreActor
enum SleepCommands {
    nonisolated static let all: [Command] = [
        Command("sleeptimer", .player, arguments: 1...1, handler: sleeptimer)
    ]

    /// A week: a longer timer is a typo, not a plan.
    static let longest = 7 * 24 * 3600

    static func sleeptimer(_ call: CommandCall, _ out: inout ResponseWriter) throws -> CommandResult {
        call.session.partition.sleep.set(try request(call[0]))
        return .ok
    }

    static func request(_ text: String) throws -> SleepTimer.Request {
        switch text.lowercased() {
        case "end": return .endOfSong
        case "off", "cancel": return .cancel
        default:
            guard let seconds = Int(text), (0...longest).contains(seconds) else {
                throw ProtocolError.argument("Expected seconds (at most \(longest)), \"end\" or 0: \"\(text)\"")
            }
            return seconds == 0 ? .cancel : .after(seconds: seconds)
        }
    }

    /// mpdscheduler's messages on the `scheduler` channel: `sleep +MINUTES` (or `sleep
    /// MINUTES`), `sleep end`, `sleep off`/`sleep 0`/`cancel`. nil for anything else.
    static func schedulerRequest(_ message: String) -> SleepTimer.Request? {
        let words = message.lowercased().split(separator: " ")
        if words == ["cancel"] { return .cancel }
        guard words.count == 2, words[0] == "sleep" else { return nil }
        switch words[1] {
        case "end": return .endOfSong
        case "off", "cancel", "0", "+0": return .cancel
        default:
            let digits = words[1].hasPrefix("+") ? words[1].dropFirst() : words[1]
            guard let minutes = Int(digits), minutes > 0, minutes * 60 <= longest else { return nil }
            return .after(seconds: minutes * 60)
        }
    }
}
