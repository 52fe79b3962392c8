import NimbusLibrary
import NimbusModel
import NimbusProtocol
import NimbusStickers
import NimbusSupport

/// `sticker`, `stickertypes`, `stickernames`, `stickernamestypes` as MPD 0.24 has them: on
/// songs, stored playlists, tag values and filter expressions, listed only when a sticker
/// database is configured. The database is MPD's, so stickers MPD 0.23 wrote stay readable.
@CoreActor
enum StickerCommands {
    nonisolated static let available: Command.Availability = { $0.stickers != nil }

    nonisolated static let all: [Command] = [
        Command("sticker", .admin, arguments: 3...3, unlimited: true, available: available, handler: sticker),
        Command("stickertypes", .admin, arguments: 0...0, available: available, handler: stickerTypes),
        Command("stickernames", .admin, arguments: 0...0, available: available, handler: stickernames),
        Command("stickernamestypes", .admin, arguments: 0...1, available: available, handler: stickerNamesTypes),
    ]

    /// The tags MPD 0.24 lets stickers attach to (src/sticker/AllowedTags.cxx).
    nonisolated static let allowedTags: Set<TagType> = [
        .artist, .album, .albumArtist, .title, .genre, .composer, .performer, .conductor, .work, .ensemble, .location,
        .label, .musicBrainzArtistID, .musicBrainzAlbumID, .musicBrainzAlbumArtistID, .musicBrainzReleaseTrackID,
        .musicBrainzWorkID,
    ]

    /// What a sticker is attached to; `storedType` is the `type` column, which for tags is the
    /// tag's canonical name, so `artist` and `Artist` share their stickers.
    enum Domain {
        case song, playlist, filter
        case tag(TagType)

        init(_ name: String) throws {
            switch name {
            case "song": self = .song
            case "playlist": self = .playlist
            case "filter": self = .filter
            default:
                guard let tag = TagType(name: name) else {
                    throw ProtocolError.argument("unknown sticker domain \(quoted(name))")
                }
                self = .tag(tag)
            }
        }

        var storedType: String {
            switch self {
            case .song: return "song"
            case .playlist: return "playlist"
            case .filter: return "filter"
            case .tag(let tag): return tag.wireName
            }
        }
    }

    static func sticker(_ call: CommandCall, _ out: inout ResponseWriter) throws -> CommandResult {
        let store = try requireStore(call)
        let database = try DatabaseCommands.library(call).database
        let arguments = call.arguments
        let domain = try Domain(arguments[1])
        let type = domain.storedType
        do {
            switch (arguments[0], arguments.count) {
            case ("get", 4):
                let key = try self.key(arguments[2], domain, database, call)
                guard let value = try store.get(type: type, uri: key, name: arguments[3]), !arguments[3].isEmpty else {
                    throw ProtocolError(.noExist, "no such sticker: \(quoted(arguments[3]))")
                }
                out.field("sticker", arguments[3] + "=" + value)
            case ("list", 3):
                let key = try self.key(arguments[2], domain, database, call)
                for (name, value) in try store.list(type: type, uri: key) { out.field("sticker", name + "=" + value) }
            case ("set", 5), ("inc", 5), ("dec", 5):
                guard !arguments[3].isEmpty else { throw ProtocolError.argument("empty sticker name") }
                let key = try self.key(arguments[2], domain, database, call)
                if arguments[0] == "set" {
                    try store.set(type: type, uri: key, name: arguments[3], value: arguments[4])
                } else {
                    try store.add(type: type, uri: key, name: arguments[3], value: arguments[4], subtract: arguments[0] == "dec")
                }
                call.context.idle.emit(.sticker)
            case ("delete", 3), ("delete", 4):
                let key = try self.key(arguments[2], domain, database, call)
                let name = arguments.count == 4 ? arguments[3] : nil
                guard try store.delete(type: type, uri: key, name: name) else {
                    throw ProtocolError(.noExist, name.map { "no such sticker: \(quoted($0))" } ?? "no such sticker")
                }
                call.context.idle.emit(.sticker)
            case ("find", 4...):
                try find(store, domain, database, call, &out)
            default:
                throw ProtocolError.argument("bad request")
            }
        } catch let failure as StickerStore.Failure {
            call.context.logger.error(failure.message)
            throw ProtocolError(.unknown, failure.message)
        }
        return .ok
    }

    /// The database key of a sticker, checked as MPD 0.24 checks it: the song must be in the
    /// library, the playlist must exist, a tag value must occur on some song, and a filter
    /// must match one; filters are stored in MPD's normalized spelling.
    private static func key(_ argument: String, _ domain: Domain, _ database: Database, _ call: CommandCall) throws -> String {
        switch domain {
        case .song:
            guard StoragePath.isSafe(argument), let song = database.song(at: argument) else {
                throw ProtocolError(.noExist, "No such song")
            }
            return song.uri
        case .playlist:
            guard let store = call.context.playlists, store.exists(argument) else {
                throw ProtocolError.argument("no such playlist: \(quoted(argument))")
            }
            return argument
        case .tag(let tag):
            guard allowedTags.contains(tag) else { throw ProtocolError.argument("unsupported tag: \(quoted(tag.wireName))") }
            let match = StringMatch(argument, kind: .exact, foldCase: false)
            guard try matchesAny(.tag(tag, match, negated: false), database) else {
                throw ProtocolError.argument("no such \(tag.wireName): \(quoted(argument))")
            }
            return argument
        case .filter:
            let filter: SongFilter
            do {
                filter = try FilterParser.parse([argument], foldCase: false)
            } catch {
                // MPD reports a filter that does not parse as a plain runtime error.
                throw ProtocolError(.unknown, error.message)
            }
            let normalized = FilterExpression.normalized(filter)
            guard try matchesAny(filter, database) else {
                throw ProtocolError.argument("no matches found: \(quoted(normalized))")
            }
            return normalized
        }
    }

    private static func matchesAny(_ filter: SongFilter, _ database: Database) throws -> Bool {
        let evaluator = try FilterEvaluator(filter)
        return !(try database.find(evaluator, window: 0..<1)).isEmpty
    }

    /// `sticker find TYPE URI NAME [OP VALUE] [sort KEY] [window RANGE]`: sorting and the window
    /// apply in SQL, before songs that left the library are skipped, as in MPD.
    private static func find(
        _ store: StickerStore, _ domain: Domain, _ database: Database, _ call: CommandCall, _ out: inout ResponseWriter
    ) throws {
        var arguments = call.arguments[...]
        var window: (offset: Int, limit: Int?)?
        if arguments.count >= 6, arguments[arguments.endIndex - 2] == "window" {
            let range = try Arguments.range(arguments.last!)
            if range != .all { window = (range.start, range.end.map { $0 - range.start }) }
            arguments = arguments.dropLast(2)
        }
        var order: (StickerStore.FindOrder, descending: Bool)?
        if arguments.count >= 6, arguments[arguments.endIndex - 2] == "sort" {
            var key = arguments.last!
            let descending = key.hasPrefix("-")
            if descending { key.removeFirst() }
            guard let chosen = StickerStore.FindOrder(rawValue: key) else {
                throw ProtocolError.argument("Unknown sort tag \(quoted(key))")
            }
            order = (chosen, descending)
            arguments = arguments.dropLast(2)
        }
        let values = Array(arguments)
        var comparison: (StickerStore.Comparison, String)?
        if values.count > 4 {
            guard let op = StickerStore.Comparison(rawValue: values[4]) else {
                throw ProtocolError.argument("bad operator \(quoted(values[4]))")
            }
            // MPD binds a missing value as NULL, which no sticker equals: an empty answer.
            guard values.count > 5 else { return }
            comparison = (op, values[5])
        }
        let base = values[2]
        let name = values[3]
        let prefix: String
        if case .song = domain { prefix = base.isEmpty ? "" : base + "/" } else { prefix = base }
        let found = try store.find(
            type: domain.storedType, prefix: prefix, name: name, comparison: comparison, order: order, window: window)
        for (uri, value) in found {
            switch domain {
            case .song:
                // Stickers of songs no longer in the database are kept but not listed.
                guard database.song(at: uri) != nil else { continue }
                out.field("file", uri)
            default:
                out.field(named: domain.storedType, uri)
            }
            out.field("sticker", name + "=" + value)
        }
    }

    static func stickerTypes(_ call: CommandCall, _ out: inout ResponseWriter) throws -> CommandResult {
        _ = try requireStore(call)
        for type in ["filter", "playlist", "song"] { out.field("stickertype", type) }
        let visible = call.session.visibleTags
        for tag in TagType.allCases where allowedTags.contains(tag) && visible.contains(tag) {
            out.field("stickertype", tag.wireName)
        }
        return .ok
    }

    /// The type is spelled exactly here (MPD uses its case-sensitive tag parser).
    static func stickerNamesTypes(_ call: CommandCall, _ out: inout ResponseWriter) throws -> CommandResult {
        _ = try requireStore(call)
        _ = try DatabaseCommands.library(call)
        let type = call.arguments.first
        if let type, !["song", "playlist", "filter"].contains(type) {
            guard let tag = TagType.allCases.first(where: { $0.wireName == type }) else {
                throw ProtocolError.argument("no such tag \(quoted(type))")
            }
            guard allowedTags.contains(tag) else { throw ProtocolError.argument("unsupported tag \(quoted(type))") }
        }
        for (name, type) in try withStore(call, { (store) throws(StickerStore.Failure) in try store.namesAndTypes(type: type) }) {
            out.field("name", name)
            out.field("type", type)
        }
        return .ok
    }

    private static func requireStore(_ call: CommandCall) throws -> StickerStore {
        guard let store = call.context.stickers else { throw ProtocolError(.unknown, "sticker database is disabled") }
        return store
    }

    private static func withStore<T>(_ call: CommandCall, _ body: (StickerStore) throws(StickerStore.Failure) -> T) throws -> T {
        let store = try requireStore(call)
        do {
            return try body(store)
        } catch {
            call.context.logger.error(error.message)
            throw ProtocolError(.unknown, error.message)
        }
    }

    /// fmt's `{:?}`: in double quotes, with quotes, backslashes and control characters escaped.
    nonisolated static func quoted(_ text: String) -> String {
        var result = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": result += "\\\""
            case "\\": result += "\\\\"
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            case "\t": result += "\\t"
            case _ where scalar.value < 0x20 || scalar.value == 0x7F:
                result += "\\x" + (scalar.value < 0x10 ? "0" : "") + String(scalar.value, radix: 16)
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result + "\""
    }

    static func stickernames(_ call: CommandCall, _ out: inout ResponseWriter) throws -> CommandResult {
        for name in try withStore(call, { (store) throws(StickerStore.Failure) in try store.names() }) {
            out.field("name", name)
        }
        return .ok
    }

}
