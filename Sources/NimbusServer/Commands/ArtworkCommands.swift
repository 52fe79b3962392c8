import NimbusModel
import NimbusLibrary
import NimbusProtocol
import NimbusSources
import NimbusSupport

/// albumart (a cover file beside the song), readpicture (a picture inside it) and
/// readcomments (its raw metadata pairs). The song sources read them; a cloud song's answer
/// is worked out off the core loop.
@CoreActor
enum ArtworkCommands {
    nonisolated static let all: [Command] = [
        Command("albumart", .read, arguments: 2...2, available: DatabaseCommands.hasLibrary, handler: albumArt),
        Command("readpicture", .read, arguments: 2...2, available: DatabaseCommands.hasLibrary, handler: readPicture),
        Command("readcomments", .read, arguments: 1...1, available: DatabaseCommands.hasLibrary, handler: readComments),
    ]

    /// A path ending in `/` names the directory itself: MPD 0.23 sent its cover and Cantata
    /// asks exactly that; 0.24.13 rejects it as a bad relative path, which leaves Cantata
    /// without covers, so Nimbus keeps answering it (a deliberate difference).
    static func albumArt(_ call: CommandCall, _ out: inout ResponseWriter) throws -> CommandResult {
        _ = try DatabaseCommands.library(call)
        let argument = call[0]
        let namesDirectory = argument.count > 1 && argument.hasSuffix("/")
        let directory: String, song: String?
        switch try URILocation.locate(namesDirectory ? String(argument.dropLast()) : argument, call, allowEmpty: false) {
        case .url, .file:
            throw ProtocolError(.noExist, "No file exists")
        case .relative(let uri):
            directory = namesDirectory ? uri : StoragePath.parent(uri)
            song = namesDirectory ? nil : uri
        }
        let offset = Int(try Arguments.unsigned(call[1]))
        let songs = call.context.songs, limit = call.session.binaryLimit
        return try DeferredAnswer.respond(remote: songs.readsOverNetwork(directory), into: &out) {
            let data = try songs.cover(inDirectory: directory, for: song)
            guard offset <= data.count else { throw ProtocolError.argument("Offset too large") }
            var out = ResponseWriter()
            out.field("size", data.count)
            out.binary(data[offset..<min(data.count, offset + limit)])
            return out
        }
    }

    static func readPicture(_ call: CommandCall, _ out: inout ResponseWriter) throws -> CommandResult {
        let offset = Int(try Arguments.unsigned(call[1]))
        let limit = call.session.binaryLimit
        return try metadata(call, picture: true, into: &out) { metadata in
            var out = ResponseWriter()
            guard let picture = metadata.picture else { return out }
            guard offset <= picture.count else { throw ProtocolError.argument("Bad file offset") }
            out.field("size", picture.count)
            if let mime = metadata.pictureType { out.field("type", mime) }
            out.binary(picture[offset..<min(picture.count, offset + limit)])
            return out
        }
    }

    static func readComments(_ call: CommandCall, _ out: inout ResponseWriter) throws -> CommandResult {
        try metadata(call, picture: false, into: &out) { metadata in
            var out = ResponseWriter()
            for (key, value) in metadata.comments where isListable(key, value) { out.field(named: key, value) }
            return out
        }
    }

    /// MPD's rule for a comment `readcomments` may print: a name of ASCII letters, `_` and
    /// `-` (starting with a letter), a value without control characters — a multi-line
    /// value (lyrics) would otherwise end the line early and put text where a client reads
    /// protocol.
    nonisolated static func isListable(_ key: String, _ value: String) -> Bool {
        guard let first = key.utf8.first, Self.isLetter(first),
            key.utf8.allSatisfy({ Self.isLetter($0) || $0 == UInt8(ascii: "_") || $0 == UInt8(ascii: "-") })
        else { return false }
        return !value.utf8.contains { $0 < 0x20 }
    }

    nonisolated private static func isLetter(_ byte: UInt8) -> Bool { (byte | 0x20) >= UInt8(ascii: "a") && (byte | 0x20) <= UInt8(ascii: "z") }

    /// A library song's metadata read again, answered with what `render` makes of it.
    private static func metadata(
        _ call: CommandCall, picture: Bool, into out: inout ResponseWriter,
        render: @escaping @Sendable (SongMetadata) throws -> ResponseWriter
    ) throws -> CommandResult {
        let library = try DatabaseCommands.library(call)
        guard case .relative(let uri) = try URILocation.locate(call[0], call, allowEmpty: false),
            library.database.song(at: uri) != nil
        else {
            throw ProtocolError(.noExist, "No such song")
        }
        let songs = call.context.songs
        return try DeferredAnswer.respond(remote: songs.readsOverNetwork(uri), into: &out) {
            try render(try songs.metadata(of: uri, picture: picture))
        }
    }
}
