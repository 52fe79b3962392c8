import NimbusCore
import NimbusLibrary
import NimbusModel
import NimbusProtocol
import NimbusQueue
import NimbusSupport

/// Reading the queue: playlistinfo, playlistid, playlist, playlistfind, playlistsearch,
/// plchanges, plchangesposid, currentsong.
@CoreActor
enum QueueInfoCommands {
    nonisolated static let all: [Command] = [
        Command("playlistinfo", .read, arguments: 0...1, handler: playlistInfo),
        Command("playlistid", .read, arguments: 0...1, handler: playlistID),
        Command("playlist", .read, arguments: 0...0, handler: playlist),
        Command("playlistfind", .read, arguments: 1...1, unlimited: true, handler: playlistfind),
        Command("playlistsearch", .read, arguments: 1...1, unlimited: true, handler: playlistsearch),
        Command("plchanges", .read, arguments: 1...2, handler: plchanges),
        Command("plchangesposid", .read, arguments: 1...2, handler: plchangesposid),
        Command("currentsong", .read, arguments: 0...0, handler: currentSong),
    ]

    static func playlistInfo(_ call: CommandCall, _ out: inout ResponseWriter) throws -> CommandResult {
        let queue = call.session.partition.queue
        let range = try call.arguments.first.map { try Arguments.range($0) } ?? .all
        let end = min(range.end ?? queue.count, queue.count)
        // MPD's playlist_print_info: the end is clipped, a start beyond it is an error.
        guard range.start <= end else { throw PlaybackError.badSongIndex }
        let mask = call.session.visibleTags
        for position in range.start..<end {
            SongPrinter.write(queue[position], position: position, mask: mask, into: &out)
        }
        return .ok
    }

    static func playlistID(_ call: CommandCall, _ out: inout ResponseWriter) throws -> CommandResult {
        let queue = call.session.partition.queue
        let mask = call.session.visibleTags
        guard let argument = call.arguments.first else {
            for position in 0..<queue.count { SongPrinter.write(queue[position], position: position, mask: mask, into: &out) }
            return .ok
        }
        let id = Int(try Arguments.unsigned(argument))
        guard let position = queue.position(ofID: id) else { throw PlaybackError.noSuchSong }
        SongPrinter.write(queue[position], position: position, mask: mask, into: &out)
        return .ok
    }

    /// The deprecated `playlist`: `POS:file: URI` lines.
    static func playlist(_ call: CommandCall, _ out: inout ResponseWriter) throws -> CommandResult {
        let queue = call.session.partition.queue
        for position in 0..<queue.count {
            out.line("\(position):file: \(queue[position].song.uri)")
        }
        return .ok
    }

    /// MPD 0.24's PrintQueue: without `sort` the window counts matches in queue order and its
    /// start may not pass the queue's length; with `sort` it counts the sorted matches.
    static func find(_ call: CommandCall, _ out: inout ResponseWriter, foldCase: Bool) throws -> CommandResult {
        let query = try QueryArguments.parse(call.arguments[...], foldCase: foldCase, allowPriority: true)
        let queue = call.session.partition.queue
        let mask = call.session.visibleTags
        var matches = (0..<queue.count).filter { query.evaluator.matches(queue[$0].song, priority: queue[$0].priority) }
        let window = query.window ?? 0..<Int.max
        if let sort = query.sort {
            guard window.lowerBound <= matches.count else { throw PlaybackError.badSongIndex }
            sort.sort(&matches, song: { queue[$0].song }, priority: { queue[$0].priority })
        } else {
            guard window.lowerBound <= queue.count else { throw PlaybackError.badSongIndex }
        }
        for position in matches.dropFirst(window.lowerBound).prefix(window.count) {
            SongPrinter.write(queue[position], position: position, mask: mask, into: &out)
        }
        return .ok
    }

    static func changes(_ call: CommandCall, _ out: inout ResponseWriter, positionsOnly: Bool) throws -> CommandResult {
        // strtoul, as MPD's ParseCommandArgU32: `-1` wraps to the largest version, newer than
        // the queue's, so the whole queue is printed.
        let version = UInt32(truncatingIfNeeded: try Arguments.unsigned(call[0], max: .max))
        let queue = call.session.partition.queue
        let range = try call.arguments.count > 1 ? Arguments.range(call[1]) : .all
        let end = min(range.end ?? queue.count, queue.count)
        let mask = call.session.visibleTags
        for position in queue.changes(since: version) where position >= range.start && position < end {
            if positionsOnly {
                out.field("cpos", position)
                out.field("Id", queue[position].id)
            } else {
                SongPrinter.write(queue[position], position: position, mask: mask, into: &out)
            }
        }
        return .ok
    }

    static func currentSong(_ call: CommandCall, _ out: inout ResponseWriter) throws -> CommandResult {
        let partition = call.session.partition
        guard let position = partition.currentPosition else { return .ok }
        SongPrinter.write(partition.queue[position], position: position, mask: call.session.visibleTags, into: &out)
        return .ok
    }

    static func playlistfind(_ call: CommandCall, _ out: inout ResponseWriter) throws -> CommandResult {
        try find(call, &out, foldCase: false)
    }

    static func playlistsearch(_ call: CommandCall, _ out: inout ResponseWriter) throws -> CommandResult {
        try find(call, &out, foldCase: true)
    }

    static func plchanges(_ call: CommandCall, _ out: inout ResponseWriter) throws -> CommandResult {
        try changes(call, &out, positionsOnly: false)
    }

    static func plchangesposid(_ call: CommandCall, _ out: inout ResponseWriter) throws -> CommandResult {
        try changes(call, &out, positionsOnly: true)
    }

}
