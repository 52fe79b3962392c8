import NimbusDecoder
import NimbusInput
import NimbusLibrary
import NimbusModel
import NimbusProtocol
import NimbusStorage
import NimbusSupport

/// albumart (a cover file beside the song), readpicture (a picture inside it) and
/// readcomments (its raw metadata pairs).
@CoreActor
enum ArtworkCommands {
    nonisolated static let all: [Command] = [
        Command("albumart", .read, arguments: 2...2, available: DatabaseCommands.hasLibrary, handler: albumArt),
        Command("readpicture", .read, arguments: 2...2, available: DatabaseCommands.hasLibrary, handler: readPicture),
        Command("readcomments", .read, arguments: 1...1, available: DatabaseCommands.hasLibrary, handler: readComments),
    ]

    /// MPD's cover names, then `folder.*`, which many libraries use and MPD ignores.
    nonisolated static let coverNames = [
        "cover.png", "cover.jpg", "cover.tiff", "cover.bmp", "cover.webp", "folder.jpg", "folder.png", "folder.webp",
    ]

    static func albumArt(_ call: CommandCall, _ out: inout ResponseWriter) throws -> CommandResult {
        let library = try DatabaseCommands.library(call)
        let uri = DatabaseCommands.uri(call)
        let offset = Int(try Arguments.unsigned(call[1]))
        guard StoragePath.isSafe(uri) else { throw ProtocolError(.noExist, "No file exists") }
        let directory = StoragePath.parent(uri)
        let storage = library.storage, limit = call.client.binaryLimit
        return try DeferredAnswer.respond(remote: storage.localPath(uri) == nil, into: &out) {
            for name in coverNames {
                let path = StoragePath.join(directory, name)
                guard let data = try? storage.open(path).readToEnd() else { continue }
                guard offset <= data.count else { throw ProtocolError.argument("Offset too large") }
                var out = ResponseWriter()
                out.field("size", data.count)
                out.binary(data[offset..<min(data.count, offset + limit)])
                return out
            }
            throw ProtocolError(.noExist, "No file exists")
        }
    }

    static func readPicture(_ call: CommandCall, _ out: inout ResponseWriter) throws -> CommandResult {
        let offset = Int(try Arguments.unsigned(call[1]))
        let limit = call.client.binaryLimit
        return try scan(call, ScanOptions(picture: true), into: &out) { result in
            var out = ResponseWriter()
            guard let picture = result.picture else { return out }
            guard offset <= picture.data.count else { throw ProtocolError.argument("Bad file offset") }
            out.field("size", picture.data.count)
            if let mime = picture.mimeType { out.field("type", mime) }
            out.binary(picture.data[offset..<min(picture.data.count, offset + limit)])
            return out
        }
    }

    static func readComments(_ call: CommandCall, _ out: inout ResponseWriter) throws -> CommandResult {
        try scan(call, ScanOptions(comments: true), into: &out) { result in
            var out = ResponseWriter()
            for (key, value) in result.comments { out.field(named: key, value) }
            return out
        }
    }

    /// Reads a library song's metadata again with the extras `options` asks for, and answers
    /// with what `render` makes of it.
    private static func scan(
        _ call: CommandCall, _ options: ScanOptions, into out: inout ResponseWriter,
        render: @escaping @Sendable (ScanResult) throws -> ResponseWriter
    ) throws -> CommandResult {
        let library = try DatabaseCommands.library(call)
        let uri = DatabaseCommands.uri(call)
        guard StoragePath.isSafe(uri), library.database.song(at: uri) != nil,
            let plugin = library.registry.plugin(forPath: uri)
        else { throw ProtocolError(.noExist, "No such song") }
        let storage = library.storage
        return try DeferredAnswer.respond(remote: storage.localPath(uri) == nil, into: &out) {
            do {
                return try render(try plugin.scan(try storage.open(uri), options: options))
            } catch let error as DecoderError {
                throw ProtocolError(.system, error.message)
            } catch let error as InputError {
                throw ProtocolError(.system, error.message)
            }
        }
    }
}
