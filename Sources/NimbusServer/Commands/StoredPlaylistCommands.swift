import NimbusCore
import NimbusModel
import NimbusProtocol
import NimbusStorage
import NimbusSupport

/// Stored playlists: save, load, listplaylists, listplaylist, listplaylistinfo, playlistadd,
/// playlistdelete, playlistmove, playlistclear, rm, rename. As in MPD, the commands that need
/// the playlist directory are hidden from `commands` when there is none.
@CoreActor
enum StoredPlaylistCommands {
    nonisolated static let all: [Command] = [
        Command("save", .control, arguments: 1...1, available: hasPlaylists, handler: save),
        Command("load", .add, arguments: 1...3, handler: load),
        Command("listplaylists", .read, arguments: 0...0, available: hasPlaylists, handler: listPlaylists),
        Command("listplaylist", .read, arguments: 1...1) { call, out in try listPlaylist(call, &out, info: false) },
        Command("listplaylistinfo", .read, arguments: 1...1) { call, out in try listPlaylist(call, &out, info: true) },
        Command("playlistadd", .control, arguments: 2...3, available: hasPlaylists, handler: playlistAdd),
        Command("playlistdelete", .control, arguments: 2...2, available: hasPlaylists, handler: playlistDelete),
        Command("playlistmove", .control, arguments: 3...3, available: hasPlaylists, handler: playlistMove),
        Command("playlistclear", .control, arguments: 1...1, available: hasPlaylists) { call, _ in
            try edit(call) { try $0.clear(call[0]) }
        },
        Command("rm", .control, arguments: 1...1, available: hasPlaylists) { call, _ in
            try edit(call) { try $0.remove(call[0]) }
        },
        Command("rename", .control, arguments: 2...2, available: hasPlaylists) { call, _ in
            try edit(call) { try $0.rename(call[0], to: call[1]) }
        },
    ]

    nonisolated static let hasPlaylists: Command.Availability = { $0.playlists != nil }

    static func store(_ call: CommandCall) throws -> PlaylistStore {
        guard let store = call.context.playlists else { throw PlaylistStore.Failure.noSuchPlaylist }
        return store
    }

    /// Runs a change and tells idle clients about it.
    static func edit(_ call: CommandCall, _ change: (PlaylistStore) throws -> Void) throws -> CommandResult {
        try change(try store(call))
        call.context.idle.emit(.storedPlaylist)
        return .ok
    }

    static func save(_ call: CommandCall, _ out: inout ResponseWriter) throws -> CommandResult {
        let uris = call.client.partition.queue.items.map(\.song.uri)
        return try edit(call) { try $0.create(call[0], entries: uris) }
    }

    static func load(_ call: CommandCall, _ out: inout ResponseWriter) throws -> CommandResult {
        let partition = call.client.partition
        let range = try call.arguments.count > 1 ? Arguments.range(call[1]) : .all
        let position = try call.arguments.count > 2 ? QueueCommands.insertPosition(call[2], partition) : nil
        let entries = try store(call).load(call[0])
        let selected = entries[min(range.start, entries.count)..<min(range.end ?? entries.count, entries.count)]
        let songs = selected.compactMap { resolve($0, call) }
        try partition.add(songs, at: position)
        return .ok
    }

    /// A playlist entry as a song: library songs with their tags, URLs as they are; entries
    /// whose file is gone are skipped (and stay in the playlist file).
    static func resolve(_ entry: String, _ call: CommandCall) -> Song? {
        if entry.contains("://") { return call.context.songs.remoteSong(entry) }
        guard StoragePath.isSafe(entry), let song = call.context.library?.database.song(at: entry) else {
            call.context.logger.info("playlist entry not found: \(entry)")
            return nil
        }
        return song
    }

    static func listPlaylists(_ call: CommandCall, _ out: inout ResponseWriter) throws -> CommandResult {
        for playlist in try store(call).list() {
            out.field("playlist", playlist.name)
            out.field("Last-Modified", TimeFormat.iso8601(playlist.modified))
        }
        return .ok
    }

    static func listPlaylist(_ call: CommandCall, _ out: inout ResponseWriter, info: Bool) throws -> CommandResult {
        let entries = try store(call).load(call[0])
        let database = info ? call.context.library?.database : nil
        for entry in entries {
            if let database, !entry.contains("://"), StoragePath.isSafe(entry), let song = database.song(at: entry) {
                SongPrinter.write(song, mask: call.client.visibleTags, into: &out)
            } else {
                out.field("file", entry)
            }
        }
        return .ok
    }

    static func playlistAdd(_ call: CommandCall, _ out: inout ResponseWriter) throws -> CommandResult {
        let position = call.arguments.count > 2 ? Int(try Arguments.unsigned(call[2])) : nil
        let uris = try SongLookup.songs(for: call[1], call, kind: .songOrDirectory).map(\.uri)
        return try edit(call) { try $0.add(call[0], entries: uris, at: position) }
    }

    static func playlistDelete(_ call: CommandCall, _ out: inout ResponseWriter) throws -> CommandResult {
        let range = try Arguments.range(call[1])
        let store = try store(call)
        let count = try store.load(call[0]).count
        guard range.start < count else { throw PlaylistStore.Failure.badSongIndex }
        return try edit(call) { try $0.delete(call[0], range: range.start..<min(range.end ?? count, count)) }
    }

    static func playlistMove(_ call: CommandCall, _ out: inout ResponseWriter) throws -> CommandResult {
        let from = Int(try Arguments.unsigned(call[1]))
        let to = Int(try Arguments.unsigned(call[2]))
        return try edit(call) { try $0.move(call[0], from: from, to: to) }
    }
}
