import NimbusModel

/// System and ID3 browsing: `ping`, `getLicense`, `getOpenSubsonicExtensions`,
/// `getMusicFolders`, `getArtists`, `getArtist`, `getAlbum`, `getSong`, `getGenres`,
/// `getScanStatus`, `startScan`, `getUser`.
extension SubsonicService {
    static let ignoredArticles = ["The", "El", "La", "Los", "Las", "Le", "Les", "Die", "Der", "Das"]

    enum BrowsingEndpoints {
        static func ping(_ call: SubsonicCall) throws(SubsonicError) -> SubsonicReply {
            .node(nil)
        }

        static func getLicense(_ call: SubsonicCall) throws(SubsonicError) -> SubsonicReply {
            .node(SubsonicNode("license", [("valid", .bool(true))]))
        }

        static func getOpenSubsonicExtensions(_ call: SubsonicCall) throws(SubsonicError) -> SubsonicReply {
            var list = SubsonicNode("openSubsonicExtensions-holder")
            let names = ["formPost", "apiKeyAuthentication", "transcodeOffset", "songLyrics", "indexBasedQueue", "getPodcastEpisode"]
            let extensions = names.map { name in
                var node = SubsonicNode("openSubsonicExtensions", [("name", .string(name))])
                node.values = [("versions", [.int(1)])]
                return node
            }
            list.add(list: "openSubsonicExtensions", extensions)
            return .nodes(list)
        }

        static func getMusicFolders(_ call: SubsonicCall) throws(SubsonicError) -> SubsonicReply {
            var folders = SubsonicNode("musicFolders")
            var items = [SubsonicNode("musicFolder", [("id", .int(0)), ("name", .string("Music"))])]
            for mount in call.backend.mounts() {
                items.append(SubsonicNode("musicFolder", [("id", .int(Int64(SubsonicIDs.folder(mount)))), ("name", .string(mount))]))
            }
            folders.add(list: "musicFolder", items)
            return .node(folders)
        }

        static func getArtists(_ call: SubsonicCall) throws(SubsonicError) -> SubsonicReply {
            let library = call.library
            let folder = try call.arguments.optionalInt("musicFolderId", range: 0...Int(Int32.max))
            var groups: [String: [Int]] = [:]
            for (index, artist) in library.artists.enumerated() {
                if let folder, !artist.albums.contains(where: { library.albums[$0].folders.contains(folder) }) { continue }
                groups[indexLetter(artist.name), default: []].append(index)
            }
            var artists = SubsonicNode("artists", [("ignoredArticles", .string(ignoredArticles.joined(separator: " ")))])
            let indexes = groups.keys.sorted().map { letter in
                var node = SubsonicNode("index", [("name", .string(letter))])
                let members = groups[letter]!.sorted { sortName(library.artists[$0].name) < sortName(library.artists[$1].name) }
                node.add(list: "artist", members.map { call.artist($0) })
                return node
            }
            artists.add(list: "index", indexes)
            return .node(artists)
        }

        static func getArtist(_ call: SubsonicCall) throws(SubsonicError) -> SubsonicReply {
            let library = call.library
            guard let entry = library.artist(try call.arguments.required("id")), let at = library.artistPosition(entry.id) else {
                throw .notFound("Artist")
            }
            var node = call.artist(at)
            node.add(list: "album", entry.albums.map { call.album($0) })
            return .node(node)
        }

        static func getAlbum(_ call: SubsonicCall) throws(SubsonicError) -> SubsonicReply {
            let library = call.library
            guard let entry = library.album(try call.arguments.required("id")), let at = library.albumPosition(entry.id) else {
                throw .notFound("Album")
            }
            var node = call.album(at)
            node.add(list: "song", entry.songs.map { call.song(library.songs[$0]) })
            return .node(node)
        }

        static func getSong(_ call: SubsonicCall) throws(SubsonicError) -> SubsonicReply {
            let library = call.library
            guard let entry = library.song(try call.arguments.required("id")) else { throw .notFound("Song") }
            return .node(call.song(entry))
        }

        static func getGenres(_ call: SubsonicCall) throws(SubsonicError) -> SubsonicReply {
            let library = call.library
            var songs: [String: Int] = [:]
            var albums: [String: Set<Int>] = [:]
            for entry in library.songs {
                for genre in entry.song.tag.values(.genre) {
                    songs[genre, default: 0] += 1
                    albums[genre, default: []].insert(entry.album)
                }
            }
            var node = SubsonicNode("genres")
            node.add(
                list: "genre",
                songs.keys.sorted().map { name in
                    var genre = SubsonicNode("genre", [("songCount", .int(Int64(songs[name]!))), ("albumCount", .int(Int64(albums[name]!.count)))])
                    genre.text = name
                    return genre
                })
            return .node(node)
        }

        static func getScanStatus(_ call: SubsonicCall) throws(SubsonicError) -> SubsonicReply {
            let scanning = call.blocking { await call.backend.scanning() }
            return .node(SubsonicNode("scanStatus", [("scanning", .bool(scanning)), ("count", .int(Int64(call.database.statistics.songs)))]))
        }

        static func startScan(_ call: SubsonicCall) throws(SubsonicError) -> SubsonicReply {
            call.blocking { await call.backend.startScan() }
            return .node(SubsonicNode("scanStatus", [("scanning", .bool(true)), ("count", .int(Int64(call.database.statistics.songs)))]))
        }

        static func getUser(_ call: SubsonicCall) throws(SubsonicError) -> SubsonicReply {
            let me = call.user!
            let name = try call.arguments.optional("username") ?? me.name
            guard name == me.name || me.permissions.contains(.admin) else { throw .notAuthorized }
            guard let user = call.service.signIn.users.first(where: { $0.name == name }) else { throw .notFound("User") }
            return .node(userNode(user, mounts: call.backend.mounts()))
        }
    }

    static func userNode(_ user: SubsonicUser, mounts: [String]) -> SubsonicNode {
        let can = user.permissions
        var node = SubsonicNode("user", [("username", .string(user.name)), ("scrobblingEnabled", .bool(true))])
        for (role, allowed) in [
            ("adminRole", can.contains(.admin)), ("settingsRole", can.contains(.admin)), ("downloadRole", can.contains(.read)),
            ("uploadRole", false), ("playlistRole", can.contains(.add)), ("coverArtRole", can.contains(.read)),
            ("commentRole", false), ("podcastRole", can.contains(.add)), ("streamRole", can.contains(.read)),
            ("jukeboxRole", can.contains(.player)), ("shareRole", false), ("videoConversionRole", false),
        ] {
            node.set(role, allowed)
        }
        node.values = [("folder", [.int(0)] + mounts.map { .int(Int64(SubsonicIDs.folder($0))) })]
        return node
    }

    /// The name without a leading article, for sorting and indexing.
    static func sortName(_ name: String) -> String {
        for article in ignoredArticles where name.count > article.count + 1 && name.hasPrefix(article + " ") {
            return String(name.dropFirst(article.count + 1)).lowercased()
        }
        return name.lowercased()
    }

    static func indexLetter(_ name: String) -> String {
        guard let first = sortName(name).uppercased().first else { return "#" }
        return first.isLetter ? String(first) : "#"
    }
}
