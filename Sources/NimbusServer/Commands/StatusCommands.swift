import NimbusCore
import NimbusLibrary
import NimbusProtocol
import NimbusSupport

/// status and stats, field for field in MPD 0.23's order.
@CoreActor
enum StatusCommands {
    nonisolated static let all: [Command] = [
        Command("status", .read, arguments: 0...0, handler: status),
        Command("stats", .read, arguments: 0...0, handler: stats),
    ]

    static func status(_ call: CommandCall, _ out: inout ResponseWriter) throws -> CommandResult {
        let partition = call.session.partition
        let options = partition.options
        // One copy of the queue for the whole answer: each `partition.queue` costs retains.
        let queue = partition.queue
        if let volume = partition.outputs.volume { out.field("volume", volume) }
        out.field("repeat", options.repeatMode ? 1 : 0)
        out.field("random", queue.random ? 1 : 0)
        out.field("single", options.single.rawValue)
        out.field("consume", options.consume.rawValue)
        out.field("partition", partition.name)
        out.field("playlist", Int(queue.version))
        out.field("playlistlength", queue.count)
        out.field("mixrampdb", NumberFormat.minimal(options.mixRampDB))
        switch partition.state {
        case .stop: out.field("state", literal: "stop")
        case .play: out.field("state", literal: "play")
        case .pause: out.field("state", literal: "pause")
        }
        out.field("lastloadedplaylist", partition.lastLoadedPlaylist)
        if options.crossfade > 0 { out.field("xfade", options.crossfade) }
        if let delay = options.mixRampDelay { out.field("mixrampdelay", NumberFormat.minimal(delay)) }
        if let position = partition.currentPosition {
            out.field("song", position)
            out.field("songid", queue[position].id)
        }
        if partition.state != .stop, partition.currentItem != nil {
            // As MPD's decoder stamps its chunks (`timestamp - start_time`): a song with a
            // range (`rangeid`, a CUE track) counts from the range's start, its `duration`
            // is the range's length.
            let elapsed = partition.elapsedMilliseconds
            let total = partition.durationMilliseconds
            out.field("time", "\((elapsed + 500) / 1000):\(((total ?? 0) + 500) / 1000)")
            out.field("elapsed", NumberFormat.seconds(Double(elapsed) / 1000))
            out.field("bitrate", partition.bitRate)
            if let total { out.field("duration", NumberFormat.seconds(Double(total) / 1000)) }
            if let format = partition.audioFormat { out.field("audio", format: format) }
        }
        if let job = call.context.library?.updatingJobID { out.field("updating_db", job) }
        if let left = partition.sleep.secondsLeft { out.field("sleeptimer", left) }
        if let error = partition.error { out.field("error", Redaction.withoutCredentials(error)) }
        if let next = partition.displayedNextPosition {
            out.field("nextsong", next)
            out.field("nextsongid", queue[next].id)
        }
        return .ok
    }

    static func stats(_ call: CommandCall, _ out: inout ResponseWriter) throws -> CommandResult {
        out.field("uptime", call.context.uptimeSeconds)
        out.field("playtime", call.session.partition.playTimeSeconds)
        let database = call.context.library?.database ?? .empty
        out.field("artists", database.statistics.artists)
        out.field("albums", database.statistics.albums)
        out.field("songs", database.statistics.songs)
        out.field("db_playtime", database.statistics.playtime / 1000)
        if database.updated > 0 { out.field("db_update", Int(database.updated)) }
        return .ok
    }
}
