import NimbusCore
import NimbusModel
import NimbusSupport

/// Playlists are MPD's stored playlists — the same files `save` and `load` use — so one an
/// MPD client saved is on the phone, and one made on the phone loads on the box. A
/// playlist's id is made from its name as song ids are from URIs (`p` + MD5); its entries
/// that are not library songs (a radio URL) are kept in the file but not shown, and the
/// indexes `updatePlaylist` removes are those of the songs shown. Edits run on the core loop,
/// one after another with the MPD port's, and raise `stored_playlist` there.
extension SubsonicService {
    enum PlaylistEndpoints {
        static func getPlaylists(_ call: SubsonicCall) throws(SubsonicError) -> SubsonicReply {
            let store = try call.playlists()
            let library = call.library
            var node = SubsonicNode("playlists")
            let items = store.list().sorted { $0.name < $1.name }.map { entry in
                playlistNode(call, name: entry.name, modified: entry.modified, songs: shown((try? store.load(entry.name)) ?? [], library))
            }
            node.add(list: "playlist", items)
            return .node(node)
        }

        static func getPlaylist(_ call: SubsonicCall) throws(SubsonicError) -> SubsonicReply {
            let (store, name, modified) = try call.playlist(try call.arguments.required("id"))
            return .node(try call.playlistWithSongs(store, name: name, modified: modified))
        }

        static func createPlaylist(_ call: SubsonicCall) throws(SubsonicError) -> SubsonicReply {
            let library = call.library
            var uris: [String] = []
            for id in call.arguments.all("songId").prefix(100_000) {
                guard let song = library.song(id) else { throw .notFound("Song") }
                uris.append(song.uri)
            }
            let store: PlaylistStore, name: String
            if let id = try call.arguments.optional("playlistId") {
                (store, name, _) = try call.playlist(id)
                try call.edit { [uris, name, store] () throws(PlaylistStore.Failure) in try store.save(name, entries: uris, mode: .replace) }
            } else {
                store = try call.playlists()
                name = try call.arguments.required("name")
                guard PlaylistStore.isValidName(name), name.utf8.count <= 255 else { throw .invalid("name") }
                try call.edit { [uris, name, store] () throws(PlaylistStore.Failure) in try store.create(name, entries: uris) }
            }
            return .node(try call.playlistWithSongs(store, name: name, modified: nil))
        }

        static func updatePlaylist(_ call: SubsonicCall) throws(SubsonicError) -> SubsonicReply {
            let library = call.library
            let (store, name, _) = try call.playlist(try call.arguments.required("playlistId"))
            var adding: [String] = []
            for id in call.arguments.all("songIdToAdd").prefix(100_000) {
                guard let song = library.song(id) else { throw .notFound("Song") }
                adding.append(song.uri)
            }
            var removing: [Int] = []
            for text in call.arguments.all("songIndexToRemove").prefix(100_000) {
                guard let index = Int(text), index >= 0 else { throw .invalid("songIndexToRemove") }
                removing.append(index)
            }
            let newName = try call.arguments.optional("name")
            if let newName, newName != name, !(PlaylistStore.isValidName(newName) && newName.utf8.count <= 255) { throw .invalid("name") }
            let oldName = name
            try call.edit { [adding, removing] () throws(PlaylistStore.Failure) in
                if !removing.isEmpty {
                    let entries = try store.load(oldName)
                    let visible = shownIndexes(entries, library)
                    let dropped = Set(removing.compactMap { $0 < visible.count ? visible[$0] : nil })
                    let kept = entries.indices.filter { !dropped.contains($0) }.map { entries[$0] }
                    try store.save(oldName, entries: kept, mode: .replace)
                }
                if !adding.isEmpty { try store.add(oldName, entries: adding) }
                if let newName, newName != oldName { try store.rename(oldName, to: newName) }
            }
            return .node(nil)
        }

        static func deletePlaylist(_ call: SubsonicCall) throws(SubsonicError) -> SubsonicReply {
            let (store, name, _) = try call.playlist(try call.arguments.required("id"))
            try call.edit { () throws(PlaylistStore.Failure) in try store.remove(name) }
            return .node(nil)
        }
    }

    static func playlistID(_ name: String) -> String { "p" + SubsonicIDs.hash("playlist", name) }

    /// The positions in `entries` of the library songs shown.
    static func shownIndexes(_ entries: [String], _ library: SubsonicLibrary) -> [Int] {
        entries.indices.filter { library.song(SubsonicIDs.song(entries[$0])) != nil }
    }

    static func shown(_ entries: [String], _ library: SubsonicLibrary) -> [SubsonicLibrary.SongEntry] {
        entries.compactMap { library.song(SubsonicIDs.song($0)) }
    }

    static func playlistNode(_ call: SubsonicCall, name: String, modified: Int64, songs: [SubsonicLibrary.SongEntry]) -> SubsonicNode {
        var node = SubsonicNode("playlist")
        node.set("id", playlistID(name))
        node.set("name", name)
        node.set("owner", call.user?.name ?? "")
        node.set("public", true)
        node.set("songCount", songs.count)
        node.set("duration", songs.reduce(0) { $0 + ($1.song.tag.duration ?? 0) } / 1000)
        node.set("created", ItemNodes.date(modified))
        node.set("changed", ItemNodes.date(modified))
        if let first = songs.first { node.set("coverArt", call.library.albums[first.album].id) }
        return node
    }
}

extension SubsonicCall {
    func playlists() throws(SubsonicError) -> PlaylistStore {
        guard let store = backend.playlists else { throw .unavailable("Playlists are", because: "no playlist_directory") }
        return store
    }

    /// The stored playlist an id names.
    func playlist(_ id: String) throws(SubsonicError) -> (PlaylistStore, name: String, modified: Int64) {
        let store = try playlists()
        guard SubsonicIDs.isWellFormed(id, prefix: "p"),
            let entry = store.list().first(where: { SubsonicService.playlistID($0.name) == id })
        else { throw .notFound("Playlist") }
        return (store, entry.name, entry.modified)
    }

    func playlistWithSongs(_ store: PlaylistStore, name: String, modified: Int64?) throws(SubsonicError) -> SubsonicNode {
        let entries: [String]
        do {
            entries = try store.load(name)
        } catch {
            throw SubsonicError(error, while: "read the playlist")
        }
        let songs = SubsonicService.shown(entries, library)
        let time = modified ?? store.list().first { $0.name == name }?.modified ?? 0
        var node = SubsonicService.playlistNode(self, name: name, modified: time, songs: songs)
        node.add(list: "entry", songs.map { song($0, name: "entry") })
        return node
    }

    /// Runs a playlist change on the core loop (after any the MPD port is making) and
    /// raises `stored_playlist`.
    func edit(_ change: @escaping @Sendable () throws(PlaylistStore.Failure) -> Void) throws(SubsonicError) {
        let emit = backend.emit
        let failure: PlaylistStore.Failure? = blocking { @CoreActor in
            do throws(PlaylistStore.Failure) {
                try change()
            } catch {
                return error
            }
            await emit(.storedPlaylist)
            return nil
        }
        if let failure { throw SubsonicError(failure, while: "write the playlist") }
    }
}
