import NimbusModel
import NimbusWeb

/// What an endpoint answers: content for the `subsonic-response`, or HTTP of its own
/// (a stream, a picture).
enum SubsonicReply {
    case node(SubsonicNode?)
    /// The holder's children go into the response itself (a top-level list).
    case nodes(SubsonicNode)
    case http(APIAnswer)
}

/// One endpoint of `/rest/`: its name, who may call it, and the named function that answers
/// it (so a profile shows `BrowsingEndpoints.getAlbum`, not a closure).
struct SubsonicEndpoint: Sendable {
    let name: String
    let permission: Permission
    let needsSignIn: Bool
    /// Answered on the web thread itself when the library index and the stickers are at
    /// hand: lookups of one item only, never a walk of the library, a file or the network.
    /// Everything else runs on a worker.
    let inline: Bool
    let run: @Sendable (SubsonicCall) throws(SubsonicError) -> SubsonicReply

    init(
        _ name: String, permission: Permission = [.read], needsSignIn: Bool = true, inline: Bool = false,
        _ run: @escaping @Sendable (SubsonicCall) throws(SubsonicError) -> SubsonicReply
    ) {
        self.name = name
        self.permission = permission
        self.needsSignIn = needsSignIn
        self.inline = inline
        self.run = run
    }
}

/// Every endpoint, by name, as MPD's command table is: sorted, each name once (a duplicate
/// stops the daemon at start instead of being silently dropped), with the Subsonic
/// endpoints the box does not implement (501: it may one day) and those it never will (410:
/// video, chat, the pre-1.4 `search`). `NAME.view` is the same as `NAME`.
struct SubsonicEndpointTable: Sendable {
    enum Lookup {
        case endpoint(SubsonicEndpoint)
        case notImplemented
        case gone
        case unknown
    }

    let endpoints: [SubsonicEndpoint]
    let notImplemented: Set<String>
    let gone: Set<String>
    private let byName: [String: SubsonicEndpoint]

    init(_ endpoints: [SubsonicEndpoint], notImplemented: Set<String>, gone: Set<String>) {
        let problems = Self.problems(endpoints, notImplemented: notImplemented, gone: gone)
        precondition(problems.isEmpty, "Subsonic endpoint table: " + problems.joined(separator: "; "))
        self.endpoints = endpoints
        self.notImplemented = notImplemented
        self.gone = gone
        byName = Dictionary(uniqueKeysWithValues: endpoints.map { ($0.name, $0) })
    }

    /// What is wrong with a table: names out of order, given twice, or both answered and
    /// listed as not implemented or gone.
    static func problems(_ endpoints: [SubsonicEndpoint], notImplemented: Set<String>, gone: Set<String>) -> [String] {
        var problems: [String] = []
        var seen: Set<String> = []
        for (index, endpoint) in endpoints.enumerated() {
            if !seen.insert(endpoint.name).inserted { problems.append("\(endpoint.name) is listed twice") }
            if index > 0, endpoints[index - 1].name >= endpoint.name, endpoints[index - 1].name != endpoint.name {
                problems.append("\(endpoint.name) is out of order")
            }
        }
        for name in seen.intersection(notImplemented.union(gone)).sorted() { problems.append("\(name) is answered and listed as missing") }
        for name in notImplemented.intersection(gone).sorted() { problems.append("\(name) is both not implemented and gone") }
        return problems
    }

    /// The endpoint a request path (`/rest/getAlbum`, `/rest/getAlbum.view`) names.
    func lookup(_ path: String) -> Lookup {
        let name = Self.name(path)
        if let endpoint = byName[name] { return .endpoint(endpoint) }
        if notImplemented.contains(name) { return .notImplemented }
        if gone.contains(name) { return .gone }
        return .unknown
    }

    static func name(_ path: String) -> String {
        var name = String(path.dropFirst("/rest/".count))
        if name.hasSuffix(".view") { name.removeLast(5) }
        return name
    }
}

extension SubsonicService {
    static let endpoints = SubsonicEndpointTable(
        [
            SubsonicEndpoint("createBookmark", permission: [.read, .add], BookmarkEndpoints.createBookmark),
            SubsonicEndpoint("createInternetRadioStation", permission: [.admin], RadioEndpoints.createInternetRadioStation),
            SubsonicEndpoint("createPlaylist", permission: [.read, .add], PlaylistEndpoints.createPlaylist),
            SubsonicEndpoint("createPodcastChannel", permission: [.read, .add], PodcastEndpoints.createPodcastChannel),
            SubsonicEndpoint("deleteBookmark", permission: [.read, .add], BookmarkEndpoints.deleteBookmark),
            SubsonicEndpoint("deleteInternetRadioStation", permission: [.admin], RadioEndpoints.deleteInternetRadioStation),
            SubsonicEndpoint("deletePlaylist", permission: [.read, .add], PlaylistEndpoints.deletePlaylist),
            SubsonicEndpoint("deletePodcastChannel", permission: [.read, .add], PodcastEndpoints.deletePodcastChannel),
            SubsonicEndpoint("deletePodcastEpisode", permission: [.read, .add], PodcastEndpoints.deletePodcastEpisode),
            SubsonicEndpoint("download", MediaEndpoints.download),
            SubsonicEndpoint("downloadPodcastEpisode", permission: [.read, .add], PodcastEndpoints.downloadPodcastEpisode),
            SubsonicEndpoint("getAlbum", inline: true, BrowsingEndpoints.getAlbum),
            SubsonicEndpoint("getAlbumInfo", ListEndpoints.getAlbumInfo),
            SubsonicEndpoint("getAlbumInfo2", ListEndpoints.getAlbumInfo2),
            SubsonicEndpoint("getAlbumList", SearchEndpoints.getAlbumList),
            SubsonicEndpoint("getAlbumList2", SearchEndpoints.getAlbumList2),
            SubsonicEndpoint("getArtist", inline: true, BrowsingEndpoints.getArtist),
            SubsonicEndpoint("getArtistInfo", ListEndpoints.getArtistInfo),
            SubsonicEndpoint("getArtistInfo2", ListEndpoints.getArtistInfo2),
            SubsonicEndpoint("getArtists", BrowsingEndpoints.getArtists),
            SubsonicEndpoint("getBookmarks", BookmarkEndpoints.getBookmarks),
            SubsonicEndpoint("getCoverArt", MediaEndpoints.getCoverArt),
            SubsonicEndpoint("getGenres", BrowsingEndpoints.getGenres),
            SubsonicEndpoint("getIndexes", FolderEndpoints.getIndexes),
            SubsonicEndpoint("getInternetRadioStations", RadioEndpoints.getInternetRadioStations),
            SubsonicEndpoint("getLicense", BrowsingEndpoints.getLicense),
            SubsonicEndpoint("getLyrics", LyricsEndpoints.getLyrics),
            SubsonicEndpoint("getLyricsBySongId", LyricsEndpoints.getLyricsBySongId),
            SubsonicEndpoint("getMusicDirectory", FolderEndpoints.getMusicDirectory),
            SubsonicEndpoint("getMusicFolders", BrowsingEndpoints.getMusicFolders),
            SubsonicEndpoint("getNewestPodcasts", PodcastEndpoints.getNewestPodcasts),
            SubsonicEndpoint("getNowPlaying", ListEndpoints.getNowPlaying),
            SubsonicEndpoint("getOpenSubsonicExtensions", needsSignIn: false, BrowsingEndpoints.getOpenSubsonicExtensions),
            SubsonicEndpoint("getPlayQueue", BookmarkEndpoints.getPlayQueue),
            SubsonicEndpoint("getPlayQueueByIndex", BookmarkEndpoints.getPlayQueueByIndex),
            SubsonicEndpoint("getPlaylist", PlaylistEndpoints.getPlaylist),
            SubsonicEndpoint("getPlaylists", PlaylistEndpoints.getPlaylists),
            SubsonicEndpoint("getPodcastEpisode", PodcastEndpoints.getPodcastEpisode),
            SubsonicEndpoint("getPodcasts", PodcastEndpoints.getPodcasts),
            SubsonicEndpoint("getRandomSongs", SearchEndpoints.getRandomSongs),
            SubsonicEndpoint("getScanStatus", BrowsingEndpoints.getScanStatus),
            SubsonicEndpoint("getSimilarSongs", ListEndpoints.getSimilarSongs),
            SubsonicEndpoint("getSimilarSongs2", ListEndpoints.getSimilarSongs2),
            SubsonicEndpoint("getSong", inline: true, BrowsingEndpoints.getSong),
            SubsonicEndpoint("getSongsByGenre", ListEndpoints.getSongsByGenre),
            SubsonicEndpoint("getStarred", AnnotationEndpoints.getStarred),
            SubsonicEndpoint("getStarred2", AnnotationEndpoints.getStarred2),
            SubsonicEndpoint("getTopSongs", ListEndpoints.getTopSongs),
            SubsonicEndpoint("getUser", BrowsingEndpoints.getUser),
            SubsonicEndpoint("getUsers", permission: [.admin], UserEndpoints.getUsers),
            SubsonicEndpoint("jukeboxControl", JukeboxEndpoints.jukeboxControl),
            SubsonicEndpoint("ping", inline: true, BrowsingEndpoints.ping),
            SubsonicEndpoint("refreshPodcasts", permission: [.read, .add], PodcastEndpoints.refreshPodcasts),
            SubsonicEndpoint("savePlayQueue", BookmarkEndpoints.savePlayQueue),
            SubsonicEndpoint("savePlayQueueByIndex", BookmarkEndpoints.savePlayQueueByIndex),
            SubsonicEndpoint("scrobble", AnnotationEndpoints.scrobble),
            SubsonicEndpoint("search2", SearchEndpoints.search2),
            SubsonicEndpoint("search3", SearchEndpoints.search3),
            SubsonicEndpoint("setRating", permission: [.read, .add], AnnotationEndpoints.setRating),
            SubsonicEndpoint("star", permission: [.read, .add], AnnotationEndpoints.star),
            SubsonicEndpoint("startScan", permission: [.control], BrowsingEndpoints.startScan),
            SubsonicEndpoint("stream", MediaEndpoints.stream),
            SubsonicEndpoint("tokenInfo", UserEndpoints.tokenInfo),
            SubsonicEndpoint("unstar", permission: [.read, .add], AnnotationEndpoints.unstar),
            SubsonicEndpoint("updateInternetRadioStation", permission: [.admin], RadioEndpoints.updateInternetRadioStation),
            SubsonicEndpoint("updatePlaylist", permission: [.read, .add], PlaylistEndpoints.updatePlaylist),
        ],
        notImplemented: [
            "changePassword", "createShare", "createUser", "deleteShare", "deleteUser", "getAvatar", "getShares", "updateShare", "updateUser",
        ],
        gone: ["addChatMessage", "getCaptions", "getChatMessages", "getVideoInfo", "getVideos", "hls", "search"])
}
