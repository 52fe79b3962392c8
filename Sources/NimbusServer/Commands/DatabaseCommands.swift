import NimbusLibrary
import NimbusModel
import NimbusProtocol
import NimbusStorage
import NimbusSupport

/// Browsing and searching the song database: lsinfo, listall, listallinfo, listfiles, find,
/// search, count, list, update, rescan.
@CoreActor
enum DatabaseCommands {
    nonisolated static let all: [Command] = [
        Command("lsinfo", .read, arguments: 0...1, available: hasLibrary, handler: lsinfo),
        Command("listall", .read, arguments: 0...1, available: hasLibrary, handler: listall),
        Command("listallinfo", .read, arguments: 0...1, available: hasLibrary, handler: listallinfo),
        Command("listfiles", .read, arguments: 0...1, available: hasLibrary, handler: listFiles),
        Command("find", .read, arguments: 1...1, unlimited: true, available: hasLibrary, handler: find),
        Command("search", .read, arguments: 1...1, unlimited: true, available: hasLibrary, handler: search),
        Command("count", .read, arguments: 1...1, unlimited: true, available: hasLibrary, handler: count),
        Command("searchcount", .read, arguments: 1...1, unlimited: true, available: hasLibrary, handler: searchcount),
        Command("list", .read, arguments: 1...1, unlimited: true, available: hasLibrary, handler: list),
        Command("update", .control, arguments: 0...1, available: hasLibrary, handler: update),
        Command("rescan", .control, arguments: 0...1, available: hasLibrary, handler: rescan),
    ]

    nonisolated static let hasLibrary: Command.Availability = { $0.library != nil }

    static func library(_ call: CommandCall) throws -> MusicLibrary {
        guard let library = call.context.library else { throw ProtocolError(.unknown, "No database") }
        return library
    }

    /// `""`, `/` and a leading slash all mean the root, as MPD accepts.
    static func uri(_ call: CommandCall) -> String {
        guard var uri = call.arguments.first else { return "" }
        while uri.hasPrefix("/") { uri.removeFirst() }
        while uri.hasSuffix("/") { uri.removeLast() }
        return uri
    }

    static func lsinfo(_ call: CommandCall, _ out: inout ResponseWriter) throws -> CommandResult {
        let argument = call.arguments.first ?? ""
        let path: String
        switch try URILocation.locate(argument == "/" ? "" : argument, call, allowEmpty: true) {
        case .url(let url):
            guard let song = call.context.songs.remoteSong(url) else { throw ProtocolError.argument("Unsupported URI scheme") }
            SongPrinter.write(song, mask: call.session.visibleTags, into: &out)
            return .ok
        case .file(let file):
            guard let song = call.context.songs.localFileSong(file) else { throw ProtocolError(.noExist, "No such file") }
            SongPrinter.write(song, mask: call.session.visibleTags, into: &out)
            return .ok
        case .relative(let relative):
            path = relative
        }
        let database = try library(call).database
        guard let directory = database.directory(at: path) else {
            if let song = database.song(at: path) {
                SongPrinter.write(song, mask: call.session.visibleTags, into: &out)
                // A song carrying its own CUE sheet is a playlist too, as MPD shows it.
                if database.playlist(at: path) != nil { out.field("playlist", path) }
                return .ok
            }
            throw ProtocolError(.noExist, "No such directory")
        }
        let hidden = directory.playlistTargets
        for song in directory.songs where !LibraryDirectory.hides(song, hidden) {
            SongPrinter.write(song.song(in: path), mask: call.session.visibleTags, into: &out)
        }
        for playlist in directory.playlists {
            out.field("playlist", StoragePath.join(path, playlist.name))
            if playlist.modified != .min { out.field("Last-Modified", iso8601: playlist.modified) }
        }
        for child in directory.directories {
            out.field("directory", StoragePath.join(path, child.name))
            out.field("Last-Modified", iso8601: child.modified)
        }
        if path.isEmpty, !call.session.protocolFeatures.contains(.hidePlaylistsInRoot) {
            for playlist in call.context.playlists?.list() ?? [] {
                out.field("playlist", playlist.name)
                out.field("Last-Modified", iso8601: playlist.modified)
            }
        }
        return .ok
    }

    static func listAll(_ call: CommandCall, _ out: inout ResponseWriter, info: Bool) throws -> CommandResult {
        let database = try library(call).database
        let path = uri(call)
        let mask = call.session.visibleTags
        guard StoragePath.isSafe(path), let start = database.directory(at: path) else {
            guard StoragePath.isSafe(path), let song = database.song(at: path) else {
                throw ProtocolError(.noExist, "No such directory")
            }
            if info { SongPrinter.write(song, mask: mask, into: &out) } else { out.field("file", song.uri) }
            return .ok
        }
        if !path.isEmpty {
            // MPD lists the named directory itself first.
            out.field("directory", path)
            if info { out.field("Last-Modified", iso8601: start.modified) }
        }
        database.visit(
            path, recursive: true,
            directory: { childPath, child in
                out.field("directory", childPath)
                if info { out.field("Last-Modified", iso8601: child.modified) }
            },
            song: { directoryPath, song in
                if info {
                    SongPrinter.write(song, in: directoryPath, mask: mask, into: &out)
                } else {
                    song.withName { out.field("file", directory: directoryPath, name: $0) }
                }
            },
            playlist: { directoryPath, playlist in
                out.field("playlist", StoragePath.join(directoryPath, playlist.name))
                if info, playlist.modified != .min { out.field("Last-Modified", iso8601: playlist.modified) }
            })
        return .ok
    }

    /// Every file and directory the storage has there, music or not, with sizes. Inside a
    /// cloud account that is a listing request, made off the core loop.
    static func listFiles(_ call: CommandCall, _ out: inout ResponseWriter) throws -> CommandResult {
        let storage = try library(call).storage
        let path: String
        switch try URILocation.locate(call.arguments.first ?? "", call, allowEmpty: true) {
        case .relative(let uri): path = uri
        case .url(let url):
            // MPD opens a storage for the URL on the spot; Nimbus lists what is mounted.
            throw ProtocolError(.system, "Failed to open \(url): mount it first (mount NAME URL), then list NAME")
        case .file(let file):
            throw ProtocolError(.system, "Failed to open \(file): only the music directory and its mounts can be listed")
        }
        return try DeferredAnswer.respond(remote: storage.localPath(path) == nil, into: &out) {
            let entries: [StorageEntry]
            do throws(StorageError) {
                entries = try storage.list(path) { _ in }
            } catch {
                let location = storage.localPath(path) ?? path
                let reason: String
                switch error.kind {
                case .notFound: reason = "No such file or directory"
                case .notADirectory: reason = "Not a directory"
                default: reason = error.message
                }
                throw ProtocolError(.system, "Failed to open \(location): \(reason)")
            }
            var out = ResponseWriter()
            for entry in entries where !entry.isSymbolicLink {
                switch entry.kind {
                case .file:
                    out.field("file", entry.name)
                    out.field("size", Int(entry.size))
                case .directory:
                    out.field("directory", entry.name)
                }
                out.field("Last-Modified", iso8601: entry.modified)
            }
            return out
        }
    }

    static func find(_ call: CommandCall, _ out: inout ResponseWriter, foldCase: Bool) throws -> CommandResult {
        let database = try library(call).database
        let query = try QueryArguments.parse(call.arguments[...], foldCase: foldCase)
        let mask = call.session.visibleTags
        for var song in try database.find(query.evaluator, sort: query.sort, window: query.window) {
            // MPD 0.23 sorts detached copies that have lost the audio format: no Format line.
            if query.sort != nil { song.format = nil }
            SongPrinter.write(song, mask: mask, into: &out)
        }
        return .ok
    }

    static func count(_ call: CommandCall, _ out: inout ResponseWriter, foldCase: Bool) throws -> CommandResult {
        let database = try library(call).database
        var arguments = call.arguments[...]
        var group: TagType?
        if arguments.count >= 2, arguments[arguments.endIndex - 2] == "group" {
            let name = arguments.last!
            guard let tag = TagType(name: name) else { throw ProtocolError.argument("Unknown tag type: \(name)") }
            group = tag
            arguments = arguments.dropLast(2)
        }
        let evaluator = arguments.isEmpty ? nil : try FilterEvaluator(try FilterParser.parse(arguments, foldCase: foldCase))
        for (value, total) in try database.count(evaluator, group: group) {
            if let group, let value { out.field(group.staticWireName, value) }
            out.field("songs", total.songs)
            out.field("playtime", total.playtime / 1000)
        }
        return .ok
    }

    static func list(_ call: CommandCall, _ out: inout ResponseWriter) throws -> CommandResult {
        let database = try library(call).database
        var arguments = call.arguments[...]
        let name = arguments.removeFirst()
        var groups: [TagType] = []
        while arguments.count >= 2, arguments[arguments.endIndex - 2] == "group" {
            let groupName = arguments.last!
            guard let tag = TagType(name: groupName) else { throw ProtocolError.argument("Unknown tag type: \(groupName)") }
            groups.append(tag)
            arguments = arguments.dropLast(2)
        }
        let isFile = name.lowercased() == "file"
        let type = TagType(name: name)
        guard isFile || type != nil else { throw ProtocolError.argument("Unknown tag type: \(name)") }
        var filter: SongFilter?
        if arguments.count == 1, !arguments.first!.hasPrefix("(") {
            guard type == .album else { throw ProtocolError.argument("should be \"Album\" for 3 arguments") }
            filter = .tag(.artist, StringMatch(arguments.first!, kind: .exact, foldCase: false), negated: false)
        } else if !arguments.isEmpty {
            filter = try FilterParser.parse(arguments, foldCase: false)
        }
        let evaluator = try filter.map { try FilterEvaluator($0) }
        if isFile {
            for uri in try database.uris(matching: evaluator) { out.field("file", uri) }
            return .ok
        }
        let tree = try database.uniqueValues(groups + [type!], matching: evaluator)
        writeTree(tree, types: (groups + [type!])[...], into: &out)
        return .ok
    }

    private static func writeTree(_ tree: ValueTree, types: ArraySlice<TagType>, into out: inout ResponseWriter) {
        guard let type = types.first else { return }
        for key in tree.sortedKeys {
            out.field(type.staticWireName, key)
            writeTree(tree.children[key]!, types: types.dropFirst(), into: &out)
        }
    }

    static func update(_ call: CommandCall, _ out: inout ResponseWriter, rescan: Bool) throws -> CommandResult {
        // MPD's uri_safe_local: `/` is the root, any other absolute path is refused.
        if let raw = call.arguments.first, raw != "/", raw.hasPrefix("/") { throw ProtocolError.argument("Malformed path") }
        let path = uri(call)
        guard StoragePath.isSafe(path) else { throw ProtocolError.argument("Malformed path") }
        if let first = path.split(separator: "/").first { call.context.mounts?.retryAccount(String(first)) }
        let id = try library(call).update(path, rescan: rescan)
        out.field("updating_db", id)
        return .ok
    }

    static func listall(_ call: CommandCall, _ out: inout ResponseWriter) throws -> CommandResult {
        try listAll(call, &out, info: false)
    }

    static func listallinfo(_ call: CommandCall, _ out: inout ResponseWriter) throws -> CommandResult {
        try listAll(call, &out, info: true)
    }

    static func find(_ call: CommandCall, _ out: inout ResponseWriter) throws -> CommandResult {
        try find(call, &out, foldCase: false)
    }

    static func search(_ call: CommandCall, _ out: inout ResponseWriter) throws -> CommandResult {
        try find(call, &out, foldCase: true)
    }

    static func count(_ call: CommandCall, _ out: inout ResponseWriter) throws -> CommandResult {
        try count(call, &out, foldCase: false)
    }

    static func searchcount(_ call: CommandCall, _ out: inout ResponseWriter) throws -> CommandResult {
        try count(call, &out, foldCase: true)
    }

    static func update(_ call: CommandCall, _ out: inout ResponseWriter) throws -> CommandResult {
        try update(call, &out, rescan: false)
    }

    static func rescan(_ call: CommandCall, _ out: inout ResponseWriter) throws -> CommandResult {
        try update(call, &out, rescan: true)
    }

}

/// The tail arguments of find/search/findadd/searchadd: `window START:END` (last), `sort TAG`,
/// then the filter.
struct QueryArguments {
    var evaluator: FilterEvaluator
    var sort: SortOrder?
    var window: Range<Int>?
    var position: String?

    static func parse(
        _ arguments: ArraySlice<String>, foldCase: Bool, allowPosition: Bool = false, allowPriority: Bool = false
    ) throws -> QueryArguments {
        var arguments = arguments
        var position: String?
        if allowPosition, arguments.count >= 2, arguments[arguments.endIndex - 2] == "position" {
            position = arguments.last!
            arguments = arguments.dropLast(2)
        }
        var window: Range<Int>?
        if arguments.count >= 2, arguments[arguments.endIndex - 2] == "window" {
            let range = try Arguments.range(arguments.last!)
            window = range == .all ? nil : range.start..<(range.end ?? Int.max)
            arguments = arguments.dropLast(2)
        }
        var sort: SortOrder?
        if arguments.count >= 2, arguments[arguments.endIndex - 2] == "sort" {
            sort = try parseSort(arguments.last!, allowPriority: allowPriority)
            arguments = arguments.dropLast(2)
        }
        let filter = try FilterParser.parse(arguments, foldCase: foldCase)
        return QueryArguments(evaluator: try FilterEvaluator(filter), sort: sort, window: window, position: position)
    }

    /// MPD 0.24 matches the names without regard to case; `prio` exists only for the queue.
    static func parseSort(_ text: String, allowPriority: Bool = false) throws -> SortOrder {
        var name = text
        let descending = name.hasPrefix("-")
        if descending { name.removeFirst() }
        switch name.lowercased() {
        case "last-modified": return .lastModified(descending: descending)
        case "added": return .added(descending: descending)
        case "prio" where allowPriority: return .priority(descending: descending)
        default: break
        }
        guard let tag = TagType(name: name) else { throw ProtocolError.argument("Unknown sort tag") }
        return .tag(tag, descending: descending)
    }
}
