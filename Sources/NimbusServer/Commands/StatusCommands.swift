import NimbusProtocol
import NimbusSupport

/// status and stats. Until the queue, player and database exist these report the truthful
/// state of an empty, stopped daemon, field for field as a fresh MPD prints it.
@CoreActor
enum StatusCommands {
    nonisolated static let all: [Command] = [
        Command("status", .read, arguments: 0...0, handler: status),
        Command("stats", .read, arguments: 0...0, handler: stats),
    ]

    static func status(_ call: CommandCall, _ out: inout ResponseWriter) throws -> CommandResult {
        out.field("repeat", 0)
        out.field("random", 0)
        out.field("single", 0)
        out.field("consume", 0)
        out.field("partition", literal: "default")
        out.field("playlist", 1)
        out.field("playlistlength", 0)
        out.field("mixrampdb", NumberFormat.minimal(0))
        out.field("state", literal: "stop")
        return .ok
    }

    static func stats(_ call: CommandCall, _ out: inout ResponseWriter) throws -> CommandResult {
        out.field("uptime", call.context.uptimeSeconds)
        out.field("playtime", 0)
        out.field("artists", 0)
        out.field("albums", 0)
        out.field("songs", 0)
        out.field("db_playtime", 0)
        return .ok
    }
}
