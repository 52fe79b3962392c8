import NimbusCore
import NimbusModel
import NimbusProtocol
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
        /// `playlistadd`: like `add`, except that MPD looks anything without a scheme up in
        /// the database as it stands (`/etc/passwd` is just a missing directory there).
        case playlistEntry
    }

    static func songs(for argument: String, _ call: CommandCall, kind: Kind) throws -> [Song] {
        let location: URILocation
        if kind == .playlistEntry, !URILocation.hasScheme(argument) {
            location = .relative(argument == "/" ? "" : argument)
        } else {
            location = try URILocation.locate(argument == "/" ? "" : argument, call, allowEmpty: true)
        }
        switch location {
        case .url(let uri):
            guard let song = call.context.songs.remoteSong(uri) else { throw ProtocolError.argument("Unsupported URI scheme") }
            return [song]
        case .file(let path):
            return [try localFile(path, call)]
        case .relative(let uri):
            guard let database = call.context.library?.database else { throw ProtocolError(.noExist, "No database") }
            if let song = database.song(at: uri) { return [song] }
            guard kind != .song, database.directory(at: uri) != nil else {
                throw ProtocolError(.noExist, kind == .song ? "No such song" : "No such directory")
            }
            return database.songs(below: uri)
        }
    }

    /// MPD lets only clients on the local socket name files by absolute path; a file inside
    /// the music directory is the database's song.
    private static func localFile(_ path: String, _ call: CommandCall) throws -> Song {
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
