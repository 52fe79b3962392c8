import NimbusLibrary
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
        if let job = call.context.library?.updatingJobID { out.field("updating_db", job) }
        return .ok
    }

    static func stats(_ call: CommandCall, _ out: inout ResponseWriter) throws -> CommandResult {
        out.field("uptime", call.context.uptimeSeconds)
        out.field("playtime", 0)
        let database = call.context.library?.database ?? .empty
        out.field("artists", database.statistics.artists)
        out.field("albums", database.statistics.albums)
        out.field("songs", database.statistics.songs)
        out.field("db_playtime", database.statistics.playtime / 1000)
        if database.updated > 0 { out.field("db_update", Int(database.updated)) }
        return .ok
    }
}
