import Foundation
import NimbusModel

/// `star`, `unstar`, `setRating`, `scrobble`, `getStarred`, `getStarred2`: written to and read
/// from MPD's stickers (see `SubsonicStickers`), so the box's clients see them too.
extension SubsonicService {
    enum AnnotationEndpoints {
        static func star(_ call: SubsonicCall) throws(SubsonicError) -> SubsonicReply {
            try call.change(try call.starTargets().map { .set(type: $0.type, uri: $0.uri, name: SongStickers.like, value: SongStickers.likedValue) })
        }

        static func unstar(_ call: SubsonicCall) throws(SubsonicError) -> SubsonicReply {
            try call.change(try call.starTargets().map { .delete(type: $0.type, uri: $0.uri, name: SongStickers.like) })
        }

        static func setRating(_ call: SubsonicCall) throws(SubsonicError) -> SubsonicReply {
            let target = try call.target(try call.arguments.required("id"))
            guard let text = try call.arguments.optional("rating") else { throw .missing("rating") }
            guard let rating = Int(text), (0...5).contains(rating) else { throw .invalid("rating") }
            return try call.change([
                rating == 0
                    ? .delete(type: target.type, uri: target.uri, name: SongStickers.rating)
                    : .set(type: target.type, uri: target.uri, name: SongStickers.rating, value: SongStickers.ratingValue(stars: rating))
            ])
        }

        static func scrobble(_ call: SubsonicCall) throws(SubsonicError) -> SubsonicReply {
            let ids = call.arguments.all("id")
            guard !ids.isEmpty, ids.count <= 1000 else { throw ids.isEmpty ? .missing("id") : .invalid("id") }
            let times = call.arguments.all("time")
            let submission = try call.arguments.bool("submission", default: true)
            let library = call.library
            var songs: [SubsonicLibrary.SongEntry] = []
            for id in ids {
                guard let song = library.song(id) else { throw .notFound("Song") }
                songs.append(song)
            }
            guard submission else {
                // "Now playing": shown by getNowPlaying for a while, counts nothing.
                let user = call.user?.name ?? "", client = (try? call.arguments.optional("c")) ?? nil
                call.service.noteNowPlaying(user: user, song: songs[songs.count - 1].id, client: client ?? "")
                return .node(nil)
            }
            guard call.user?.permissions.contains(.add) == true else { throw .notAuthorized }
            var changes: [StickerChange] = []
            for (index, song) in songs.enumerated() {
                let now = Int64(Date().timeIntervalSince1970)
                let time = index < times.count ? (Int64(times[index]).map { $0 / 1000 } ?? now) : now
                changes.append(.add(type: "song", uri: song.uri, name: SongStickers.playCount, by: 1))
                changes.append(.set(type: "song", uri: song.uri, name: SongStickers.lastPlayed, value: String(min(max(0, time), now))))
            }
            return try call.change(changes)
        }

        static func getStarred2(_ call: SubsonicCall) throws(SubsonicError) -> SubsonicReply {
            .node(try starred(call, name: "starred2"))
        }

        static func getStarred(_ call: SubsonicCall) throws(SubsonicError) -> SubsonicReply {
            .node(try starred(call, name: "starred"))
        }
    }

    static func starred(_ call: SubsonicCall, name: String) throws(SubsonicError) -> SubsonicNode {
        let library = call.library, annotations = call.annotations
        let folder = try call.arguments.optionalInt("musicFolderId", range: 0...Int(Int32.max))
        var node = SubsonicNode(name)
        let artists = library.artists.indices.filter { index in
            guard annotations.artist(library.artists[index].name).starred else { return false }
            return folder.map { folder in library.artists[index].albums.contains { library.albums[$0].folders.contains(folder) } } ?? true
        }
        let albums = library.albums.indices.filter { index in
            annotations.album(library.albums[index].name).starred && (folder.map { library.albums[index].folders.contains($0) } ?? true)
        }
        let songs = library.songs.indices.filter { index in
            annotations.songs[library.songs[index].uri]?[SongStickers.like] == SongStickers.likedValue && (folder.map { library.songs[index].folder == $0 } ?? true)
        }
        node.add(list: "artist", artists.map { call.artist($0) })
        node.add(list: "album", albums.map { call.album($0) })
        node.add(list: "song", songs.map { call.song(library.songs[$0]) })
        return node
    }
}

extension SubsonicCall {
    /// The sticker object an id names: a song (by URI), an album or an album artist (by tag value).
    func target(_ id: String) throws(SubsonicError) -> (type: String, uri: String) {
        let library = library
        if let song = library.song(id) { return ("song", song.uri) }
        if let album = library.album(id) { return ("Album", album.name) }
        if let artist = library.artist(id) { return ("AlbumArtist", artist.name) }
        throw .notFound("Item")
    }

    /// `id`, `albumId` and `artistId`, each repeatable (at most 1,000 in all).
    func starTargets() throws(SubsonicError) -> [(type: String, uri: String)] {
        let ids = arguments.all("id") + arguments.all("albumId") + arguments.all("artistId")
        guard !ids.isEmpty else { throw .missing("id") }
        guard ids.count <= 1000 else { throw .invalid("id") }
        var targets: [(type: String, uri: String)] = []
        for id in ids { targets.append(try target(id)) }
        return targets
    }

    func change(_ changes: [StickerChange]) throws(SubsonicError) -> SubsonicReply {
        let stickers = backend.stickers
        let failure = blocking { await stickers.change(changes) }
        service.stickersChanged()
        if let failure { throw SubsonicError(0, failure) }
        return .node(nil)
    }
}
