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

    static func status(_ call: CommandCall) throws -> CommandResult {
        call.field("repeat", 0)
        call.field("random", 0)
        call.field("single", 0)
        call.field("consume", 0)
        call.field("partition", "default")
        call.field("playlist", 1)
        call.field("playlistlength", 0)
        call.field("mixrampdb", NumberFormat.minimal(0))
        call.field("state", "stop")
        return .ok
    }

    static func stats(_ call: CommandCall) throws -> CommandResult {
        call.field("uptime", call.context.uptimeSeconds)
        call.field("playtime", 0)
        call.field("artists", 0)
        call.field("albums", 0)
        call.field("songs", 0)
        call.field("db_playtime", 0)
        return .ok
    }
}
