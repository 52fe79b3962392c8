import Foundation

/// `getNowPlaying`, `getSongsByGenre`, `getTopSongs`, `getSimilarSongs(2)`,
/// `getArtistInfo(2)` and `getAlbumInfo(2)`: answered with what the library and the
/// stickers know (no service on the Internet is asked) — never an error for missing facts.
extension SubsonicService {
    enum ListEndpoints {
        static func getNowPlaying(_ call: SubsonicCall) throws(SubsonicError) -> SubsonicReply {
            let library = call.library
            var entries: [SubsonicNode] = []
            if let uri = call.blocking({ await call.backend.playing() }), let song = library.song(SubsonicIDs.song(uri)) {
                var node = call.song(song, name: "entry")
                node.set("username", "nimbus")
                node.set("minutesAgo", 0)
                node.set("playerId", 0)
                node.set("playerName", "this box")
                entries.append(node)
            }
            for (index, playing) in call.service.nowPlaying().enumerated() {
                guard let song = library.song(playing.song) else { continue }
                var node = call.song(song, name: "entry")
                node.set("username", playing.user)
                node.set("minutesAgo", Int(Date().timeIntervalSince(playing.since) / 60))
                node.set("playerId", index + 1)
                node.set("playerName", playing.client)
                entries.append(node)
            }
            var node = SubsonicNode("nowPlaying")
            node.add(list: "entry", entries)
            return .node(node)
        }

        static func getSongsByGenre(_ call: SubsonicCall) throws(SubsonicError) -> SubsonicReply {
            let library = call.library
            let genre = try call.arguments.required("genre")
            let count = try call.arguments.count("count", default: 10)
            let offset = try call.arguments.int("offset", default: 0, range: 0...Int(Int32.max))
            let folder = try call.arguments.optionalInt("musicFolderId", range: 0...Int(Int32.max))
            let picked = select(library.songs.count, (offset, count)) { index in
                let entry = library.songs[index]
                return (folder.map { entry.folder == $0 } ?? true) && entry.song.tag.values(.genre).contains(genre)
            }
            var node = SubsonicNode("songsByGenre")
            node.add(list: "song", picked.map { call.song(library.songs[$0]) })
            return .node(node)
        }

        static func getTopSongs(_ call: SubsonicCall) throws(SubsonicError) -> SubsonicReply {
            let library = call.library, annotations = call.annotations
            let artist = try call.arguments.required("artist")
            let count = try call.arguments.count("count", default: 50)
            let folded = SearchText.fold(artist)
            var songs = library.songs.indices.filter { index in
                let entry = library.songs[index]
                return SearchText.fold(entry.song.tag.first(.artist) ?? library.albums[entry.album].artist) == folded
                    || SearchText.fold(library.albums[entry.album].artist) == folded
            }
            let plays = Dictionary(uniqueKeysWithValues: songs.map { ($0, annotations.song(library.songs[$0].uri).playCount) })
            songs.sort { plays[$0]! != plays[$1]! ? plays[$0]! > plays[$1]! : $0 < $1 }
            var node = SubsonicNode("topSongs")
            node.add(list: "song", songs.prefix(count).map { call.song(library.songs[$0]) })
            return .node(node)
        }

        static func getSimilarSongs2(_ call: SubsonicCall) throws(SubsonicError) -> SubsonicReply {
            .node(try similarSongs(call, name: "similarSongs2"))
        }

        static func getSimilarSongs(_ call: SubsonicCall) throws(SubsonicError) -> SubsonicReply {
            .node(try similarSongs(call, name: "similarSongs"))
        }

        static func getArtistInfo2(_ call: SubsonicCall) throws(SubsonicError) -> SubsonicReply {
            .node(try artistInfo(call, name: "artistInfo2"))
        }

        static func getArtistInfo(_ call: SubsonicCall) throws(SubsonicError) -> SubsonicReply {
            .node(try artistInfo(call, name: "artistInfo"))
        }

        static func getAlbumInfo2(_ call: SubsonicCall) throws(SubsonicError) -> SubsonicReply {
            .node(try albumInfo(call))
        }

        static func getAlbumInfo(_ call: SubsonicCall) throws(SubsonicError) -> SubsonicReply {
            .node(try albumInfo(call))
        }
    }

    /// The genres of an artist's songs.
    static func genres(of artist: SubsonicLibrary.ArtistEntry, in library: SubsonicLibrary) -> Set<String> {
        var genres: Set<String> = []
        for album in artist.albums { for song in library.albums[album].songs { genres.formUnion(library.songs[song].song.tag.values(.genre)) } }
        return genres
    }

    /// For an artist (or a song's or an album's artist): other artists' songs of the same genres, shuffled.
    static func similarSongs(_ call: SubsonicCall, name: String) throws(SubsonicError) -> SubsonicNode {
        let library = call.library
        let id = try call.arguments.required("id")
        let count = try call.arguments.count("count", default: 50)
        let artistAt: Int
        if let song = library.song(id) {
            artistAt = library.albums[song.album].artistIndex
        } else if let album = library.album(id) {
            artistAt = album.artistIndex
        } else if let artist = library.artist(id), let at = library.artistPosition(artist.id) {
            artistAt = at
        } else {
            throw .notFound("Item")
        }
        let genres = genres(of: library.artists[artistAt], in: library)
        let songs = library.songs.indices.filter { index in
            let entry = library.songs[index]
            return library.albums[entry.album].artistIndex != artistAt && !genres.isDisjoint(with: entry.song.tag.values(.genre))
        }
        var node = SubsonicNode(name)
        node.add(list: "song", songs.shuffled().prefix(count).map { call.song(library.songs[$0]) })
        return node
    }

    static func artistInfo(_ call: SubsonicCall, name: String) throws(SubsonicError) -> SubsonicNode {
        let library = call.library
        guard let artist = library.artist(try call.arguments.required("id")), let at = library.artistPosition(artist.id) else {
            throw .notFound("Artist")
        }
        let count = try call.arguments.count("count", default: 20)
        let genres = genres(of: artist, in: library)
        var similar: [Int] = []
        if !genres.isEmpty {
            for index in library.artists.indices where index != at && similar.count < count {
                if !self.genres(of: library.artists[index], in: library).isDisjoint(with: genres) { similar.append(index) }
            }
        }
        var node = SubsonicNode(name)
        node.text = nil
        node.values = [("biography", [.string("")])]
        node.add(list: "similarArtist", similar.map { call.artist($0, name: "similarArtist") })
        return node
    }

    static func albumInfo(_ call: SubsonicCall) throws(SubsonicError) -> SubsonicNode {
        let library = call.library
        let id = try call.arguments.required("id")
        guard library.album(id) != nil || library.song(id) != nil else { throw .notFound("Album") }
        var node = SubsonicNode("albumInfo")
        node.values = [("notes", [.string("")])]
        return node
    }
}

extension SubsonicService {
    /// A phone said it is playing a song (`scrobble` with `submission=false`); shown for 10 minutes.
    func noteNowPlaying(user: String, song: String, client: String) {
        nowPlayingNotes.withLock { notes in
            notes.removeAll { $0.user == user && $0.client == client || Date().timeIntervalSince($0.since) > 600 }
            notes.append((user, song, client, Date()))
            if notes.count > 256 { notes.removeFirst(notes.count - 256) }
        }
    }

    /// What phones stream now and what they said they play, without repeats.
    func nowPlaying() -> [(user: String, song: String, client: String, since: Date)] {
        var seen: Set<String> = []
        var result: [(user: String, song: String, client: String, since: Date)] = []
        let streams = streaming.withLock { Array($0.values) }
        let notes = nowPlayingNotes.withLock { $0.filter { Date().timeIntervalSince($0.since) <= 600 } }
        for entry in notes + streams where seen.insert(entry.user + "\u{0}" + entry.client + "\u{0}" + entry.song).inserted {
            result.append(entry)
        }
        return result
    }
}
