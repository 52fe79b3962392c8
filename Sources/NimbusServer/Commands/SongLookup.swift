import NimbusCore
import NimbusModel
import NimbusProtocol
import NimbusStorage
import NimbusSupport

/// Turns the URI argument of add, addid, playlistadd and friends into songs, as MPD's
/// LocateUri does: URLs become songs of their own, relative URIs come from the database
/// (a directory adds everything below it), absolute paths only for local clients.
@CoreActor
enum SongLookup {
    enum Kind {
        /// `add`, `playlistadd`: a directory adds all of its songs.
        case songOrDirectory
        /// `addid`: exactly one song.
        case song
    }

    static func songs(for argument: String, _ call: CommandCall, kind: Kind) throws -> [Song] {
        var uri = argument
        if uri == "/" { uri = "" }
        if uri.hasPrefix("file://") { uri.removeFirst("file://".count) }
        if uri.contains("://") {
            guard let song = call.context.songs.remoteSong(uri) else { throw ProtocolError.argument("Unsupported URI scheme") }
            return [song]
        }
        if uri.hasPrefix("/") {
            return [try localFile(uri, call)]
        }
        guard let database = call.context.library?.database else { throw ProtocolError(.noExist, "No database") }
        if let song = StoragePath.isSafe(uri) ? database.song(at: uri) : nil { return [song] }
        guard kind == .songOrDirectory, StoragePath.isSafe(uri), database.directory(at: uri) != nil else {
            throw ProtocolError(.noExist, kind == .song ? "No such song" : "No such directory")
        }
        var songs: [Song] = []
        database.visit(uri, recursive: true, directory: { _, _ in }, song: { path, song in songs.append(song.song(in: path)) })
        return songs
    }

    /// MPD lets only clients on the local socket name files by absolute path; a file inside
    /// the music directory is the database's song.
    private static func localFile(_ path: String, _ call: CommandCall) throws -> Song {
        guard call.client.isLocal else { throw ProtocolError(.permission, "Access denied") }
        if let root = call.context.settings.musicDirectory, let library = call.context.library {
            let prefix = root.hasSuffix("/") ? root : root + "/"
            if path.hasPrefix(prefix), let song = library.database.song(at: String(path.dropFirst(prefix.count))) {
                return song
            }
        }
        guard let song = call.context.songs.localFileSong(path) else { throw ProtocolError(.noExist, "No such song") }
        return song
    }
}
