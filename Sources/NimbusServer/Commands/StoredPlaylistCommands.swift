import NimbusCore
import NimbusLibrary
import NimbusModel
import NimbusProtocol
import NimbusSupport

/// Stored playlists: save, load, listplaylists, listplaylist, listplaylistinfo, searchplaylist,
/// playlistlength, playlistadd, playlistdelete, playlistmove, playlistclear, rm, rename. As in
/// MPD, the commands that need the playlist directory are hidden from `commands` when there
/// is none.
@CoreActor
enum StoredPlaylistCommands {
    nonisolated static let all: [Command] = [
        Command("save", .control, arguments: 1...2, available: hasPlaylists, handler: save),
        Command("load", .add, arguments: 1...3, handler: load),
        Command("listplaylists", .read, arguments: 0...0, available: hasPlaylists, handler: listPlaylists),
        Command("listplaylist", .read, arguments: 1...2, handler: listplaylist),
        Command("listplaylistinfo", .read, arguments: 1...2, handler: listplaylistinfo),
        Command("searchplaylist", .read, arguments: 2...4, handler: searchPlaylist),
        Command("playlistlength", .read, arguments: 1...1, handler: playlistLength),
        Command("playlistadd", .control, arguments: 2...3, available: hasPlaylists, handler: playlistAdd),
        Command("playlistdelete", .control, arguments: 2...2, available: hasPlaylists, handler: playlistDelete),
        Command("playlistmove", .control, arguments: 3...3, available: hasPlaylists, handler: playlistMove),
        Command("playlistclear", .control, arguments: 1...1, available: hasPlaylists, handler: playlistclear),
        Command("rm", .control, arguments: 1...1, available: hasPlaylists, handler: rm),
        Command("rename", .control, arguments: 2...2, available: hasPlaylists, handler: rename),
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
        var mode = PlaylistStore.SaveMode.create
        if call.arguments.count > 1 {
            guard let chosen = PlaylistStore.SaveMode(rawValue: call[1]) else {
                throw ProtocolError.argument("Unrecognized save mode, expected one of 'create', 'append', 'replace'")
            }
            mode = chosen
        }
        let uris = call.session.partition.queue.items.map(\.song.uri)
        return try edit(call) { try $0.save(call[0], entries: uris, mode: mode) }
    }

    static func load(_ call: CommandCall, _ out: inout ResponseWriter) throws -> CommandResult {
        let partition = call.session.partition
        let range = try call.arguments.count > 1 ? Arguments.range(call[1]) : .all
        let positionText = call.arguments.count > 2 ? call[2] : nil
        let name = call[0]
        if let remote = try remote(call, keepMissing: false, render: { songs in
            // Where `+N`/`-N` point is decided now, after the fetch, from the queue as it is.
            let position = try positionText.map { try QueueCommands.insertPosition($0, partition) }
            try partition.add(Array(window(songs, range)), at: position)
            partition.lastLoadedPlaylist = name
            return ResponseWriter()
        }) {
            return remote
        }
        let position = try positionText.map { try QueueCommands.insertPosition($0, partition) }
        let songs = window(try load(call), range).compactMap { resolve($0, call) }
        try partition.add(songs, at: position)
        partition.lastLoadedPlaylist = name
        return .ok
    }

    /// The part of a playlist a range selects; a range past the end selects nothing.
    static func window<T>(_ entries: [T], _ range: ProtocolRange) -> ArraySlice<T> {
        let start = min(range.start, entries.count)
        return entries[start..<max(start, min(range.end ?? entries.count, entries.count))]
    }

    /// A playlist named by URL (`load "http://host/radio.m3u"`), or a playlist file in the
    /// music folder (`load "Album/album.m3u"`, which a cloud folder may have to fetch): read
    /// off the core loop, then `render` answers with its songs back on it — a library entry
    /// with the library's tags, one the library lacks left out, as MPD does. nil for a stored
    /// playlist's name (the playlist directory comes first, as in MPD).
    /// `keepMissing`: entries the library lacks are listed (`listplaylist` shows every line,
    /// as MPD does) rather than left out (`load`).
    static func remote(
        _ call: CommandCall, keepMissing: Bool = true, render: @escaping DeferredRendering
    ) throws -> CommandResult? {
        let songs = call.context.songs
        switch try URILocation.locate(call[0], call, allowEmpty: false) {
        case .url(let url):
            return .deferred {
                let fetched = try songs.remotePlaylist(url)
                return { try render(fetched) }
            }
        case .relative(let path):
            guard let database = call.context.library?.database, database.playlist(at: path) != nil,
                path.contains("/") || (try? store(call).load(path)) == nil
            else { return nil }
            let logger = call.context.logger
            return .deferred {
                let entries = try songs.libraryPlaylist(path)
                return {
                    try render(
                        entries.compactMap { entry in
                            if Song.isURL(entry.uri) { return entry }
                            guard var song = database.song(at: entry.uri) else {
                                logger.info("playlist \(path): entry not in the library: \(entry.uri)")
                                return keepMissing ? entry : nil
                            }
                            // The playlist's own tags (`#EXTINF`, `TitleN`) win, as MPD merges them.
                            let given = Set(entry.tag.items.map(\.type))
                            if !given.isEmpty { song.tag.items = song.tag.items.filter { !given.contains($0.type) } + entry.tag.items }
                            // A CUE sheet's entry is a part of the file.
                            if let target = entry.target {
                                song.target = SongTarget(uri: song.uri, start: target.start, end: target.end)
                                if let end = target.end { song.tag.duration = end - target.start } else if let length = song.tag.duration {
                                    song.tag.duration = max(0, length - target.start)
                                }
                            }
                            return song
                        })
                }
            }
        case .file:
            return nil
        }
    }

    typealias DeferredRendering = @CoreActor @Sendable ([Song]) throws -> ResponseWriter

    /// A playlist entry as a song: library songs with their tags, URLs as they are; entries
    /// whose file is gone are skipped (and stay in the playlist file).
    static func resolve(_ entry: String, _ call: CommandCall) -> Song? {
        if Song.isURL(entry) { return call.context.songs.remoteSong(entry) }
        guard StoragePath.isSafe(entry), let song = call.context.library?.database.song(at: entry) else {
            call.context.logger.info("playlist entry not found: \(entry)")
            return nil
        }
        return song
    }

    static func listPlaylists(_ call: CommandCall, _ out: inout ResponseWriter) throws -> CommandResult {
        for playlist in try store(call).list() {
            out.field("playlist", playlist.name)
            out.field("Last-Modified", iso8601: playlist.modified)
        }
        return .ok
    }

    /// A range past the end prints nothing, as MPD's playlist_provider_print simply runs out.
    static func listPlaylist(_ call: CommandCall, _ out: inout ResponseWriter, info: Bool) throws -> CommandResult {
        let range = try call.arguments.count > 1 ? Arguments.range(call[1]) : .all
        let client = call.session
        if let remote = try remote(call, render: { songs in
            var out = ResponseWriter()
            for song in window(songs, range) {
                if info { SongPrinter.write(song, mask: client.visibleTags, into: &out) } else { out.field("file", song.uri) }
            }
            return out
        }) {
            return remote
        }
        for entry in window(try load(call), range) {
            if info, let song = librarySong(entry, call) {
                SongPrinter.write(song, mask: call.session.visibleTags, into: &out)
            } else {
                out.field("file", entry)
            }
        }
        return .ok
    }

    /// MPD 0.24: case-folded matching; each match with its tags and `Pos:` in the playlist, or
    /// just its `file:` when it is not in the library. The window counts matches.
    static func searchPlaylist(_ call: CommandCall, _ out: inout ResponseWriter) throws -> CommandResult {
        var filterArguments = call.arguments.dropFirst()
        var window = 0..<Int.max
        if filterArguments.count == 3, filterArguments[filterArguments.endIndex - 2] == "window" {
            let range = try Arguments.range(filterArguments.last!)
            window = range.start..<(range.end ?? Int.max)
            filterArguments = filterArguments.dropLast(2)
        }
        let filter = try FilterEvaluator(try FilterParser.parse(filterArguments, foldCase: true))
        let client = call.session, matchWindow = window
        if let remote = try remote(call, render: { songs in
            var out = ResponseWriter()
            let matches = songs.enumerated().filter { filter.matches($0.element) }
            for (position, song) in matches.dropFirst(matchWindow.lowerBound).prefix(matchWindow.count) {
                SongPrinter.write(song, mask: client.visibleTags, into: &out)
                out.field("Pos", position)
            }
            return out
        }) {
            return remote
        }
        var skip = window.lowerBound
        var remaining = window.count
        for (position, entry) in try load(call).enumerated() where remaining > 0 {
            let song = librarySong(entry, call)
            guard filter.matches(song ?? Song(uri: entry)) else { continue }
            if skip > 0 {
                skip -= 1
                continue
            }
            if let song {
                SongPrinter.write(song, mask: call.session.visibleTags, into: &out)
                out.field("Pos", position)
            } else if Song.isURL(entry) {
                out.field("file", entry)
                out.field("Pos", position)
            } else {
                out.field("file", entry)
            }
            remaining -= 1
        }
        return .ok
    }

    /// Every entry counts as a song; only those with a known duration add to the play time,
    /// which MPD rounds to whole seconds.
    static func playlistLength(_ call: CommandCall, _ out: inout ResponseWriter) throws -> CommandResult {
        if let remote = try remote(call, render: { songs in
            var out = ResponseWriter()
            out.field("songs", songs.count)
            out.field("playtime", Self.roundedSeconds(songs.reduce(0) { $0 + max(0, $1.tag.duration ?? 0) }))
            return out
        }) {
            return remote
        }
        let entries = try load(call)
        let milliseconds = entries.reduce(0) { total, entry in
            total + max(0, (Song.isURL(entry) ? nil : librarySong(entry, call))?.tag.duration ?? 0)
        }
        out.field("songs", entries.count)
        out.field("playtime", Self.roundedSeconds(milliseconds))
        return .ok
    }

    /// std::chrono::round: to the nearest second, halves to the even one.
    static func roundedSeconds(_ milliseconds: Int) -> Int {
        let (seconds, rest) = milliseconds.quotientAndRemainder(dividingBy: 1000)
        if rest > 500 || (rest == 500 && seconds % 2 == 1) { return seconds + 1 }
        return seconds
    }

    /// The playlist a reading command names, located as MPD 0.24's LocateUri does: a relative
    /// name with empty, `.` or `..` segments is refused before any playlist is looked up.
    static func load(_ call: CommandCall) throws -> [String] {
        _ = try URILocation.locate(call[0], call, allowEmpty: false)
        return try store(call).load(call[0])
    }

    private static func librarySong(_ entry: String, _ call: CommandCall) -> Song? {
        guard !Song.isURL(entry), StoragePath.isSafe(entry) else { return nil }
        return call.context.library?.database.song(at: entry)
    }

    static func playlistAdd(_ call: CommandCall, _ out: inout ResponseWriter) throws -> CommandResult {
        let position = call.arguments.count > 2 ? Int(try Arguments.unsigned(call[2])) : nil
        let uris = try SongLookup.songs(for: call[1], call, kind: .playlistEntry).map(\.uri)
        return try edit(call) { try $0.add(call[0], entries: uris, at: position) }
    }

    static func playlistDelete(_ call: CommandCall, _ out: inout ResponseWriter) throws -> CommandResult {
        let range = try Arguments.range(call[1])
        let store = try store(call)
        let count = try store.load(call[0]).count
        // MPD 0.24's RemoveRange: the range is clipped, only a start past the end is refused.
        guard range.start <= count else { throw PlaylistStore.Failure.badSongIndex }
        return try edit(call) { try $0.delete(call[0], range: range.start..<min(range.end ?? count, count)) }
    }

    /// MPD 0.24: a range moves as a block; an empty range, or one already at its place, is
    /// accepted without looking at the playlist.
    static func playlistMove(_ call: CommandCall, _ out: inout ResponseWriter) throws -> CommandResult {
        let range = try Arguments.range(call[1])
        guard let end = range.end else { throw ProtocolError.argument("Open-ended range not supported") }
        let to = Int(try Arguments.unsigned(call[2]))
        if range.start == end || range.start == to { return .ok }
        return try edit(call) { try $0.move(call[0], range: range.start..<end, to: to) }
    }

    static func listplaylist(_ call: CommandCall, _ out: inout ResponseWriter) throws -> CommandResult {
        try listPlaylist(call, &out, info: false)
    }

    static func listplaylistinfo(_ call: CommandCall, _ out: inout ResponseWriter) throws -> CommandResult {
        try listPlaylist(call, &out, info: true)
    }

    static func playlistclear(_ call: CommandCall, _ out: inout ResponseWriter) throws -> CommandResult {
        try edit(call) { try $0.clear(call[0]) }
    }

    static func rm(_ call: CommandCall, _ out: inout ResponseWriter) throws -> CommandResult {
        try edit(call) { try $0.remove(call[0]) }
    }

    static func rename(_ call: CommandCall, _ out: inout ResponseWriter) throws -> CommandResult {
        try edit(call) { try $0.rename(call[0], to: call[1]) }
    }

}
