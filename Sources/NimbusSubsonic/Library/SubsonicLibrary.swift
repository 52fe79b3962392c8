import NimbusLibrary
import NimbusModel
import Synchronization

/// The library as the Subsonic API sees it, built once per database snapshot: songs,
/// albums (grouped by album artist and album, as `list album group albumartist` groups
/// them) and album artists, each in one stable order (by id) so that a client paging
/// through `search3` sees every song exactly once, and each page costs only its own size.
public final class SubsonicLibrary: Sendable {
    public struct SongEntry: Sendable {
        let key: UInt64
        public var id: String { SubsonicIDs.id("s", key) }
        /// The folder's key (its id is the song's `parent`), made once per folder.
        let parentKey: UInt64
        public var parent: String { SubsonicIDs.id("d", parentKey) }
        public let directory: String
        public let song: LibrarySong
        /// Index into `albums`.
        public let album: Int
        /// The music folder it is in (`SubsonicIDs.folder`).
        public let folder: Int
        public var uri: String { directory.isEmpty ? song.name : directory + "/" + song.name }
    }

    public struct AlbumEntry: Sendable {
        let key: UInt64
        public var id: String { SubsonicIDs.id("a", key) }
        /// As tagged ("" when untagged).
        public let name: String
        public let artist: String
        public let artistIndex: Int
        /// Indexes into `songs`, in disc and track order.
        public var songs: [Int]
        public var year: Int?
        public var genre: String?
        /// Milliseconds.
        public var duration: Int
        /// Seconds since 1970: when its first song entered the database.
        public var created: Int64
        public var folders: Set<Int>
    }

    public struct ArtistEntry: Sendable {
        let key: UInt64
        public var id: String { SubsonicIDs.id("r", key) }
        public let name: String
        /// Indexes into `albums`, by name.
        public var albums: [Int]
    }

    public let songs: [SongEntry]
    public let albums: [AlbumEntry]
    public let artists: [ArtistEntry]
    let songIndex: [UInt64: Int]
    let albumIndex: [UInt64: Int]
    let artistIndex: [UInt64: Int]
    /// The database's last update (seconds), for `getIndexes`' `lastModified`.
    public let updated: Int64
    /// The box's loudness measurements (`SubsonicBackend.replayGain`), read as songs are sent.
    let replayGain: (@Sendable (String, Int64) -> SubsonicReplayGain?)?

    /// The folder tree, for `getIndexes` and `getMusicDirectory`.
    public let root: LibraryDirectory
    private let directoryPaths = Mutex<[String: String]?>(nil)

    /// `location`: where a URI is (`SongLocation`); a mounted song's music folder is its mount's.
    public init(
        _ database: Database, location: (String) -> SongLocation, replayGain: (@Sendable (String, Int64) -> SubsonicReplayGain?)? = nil
    ) {
        self.replayGain = replayGain
        updated = database.updated
        root = database.root
        var songs: [SongEntry] = []
        songs.reserveCapacity(database.statistics.songs)
        var albumKeys: [UInt64: Int] = [:]
        var artistKeys: [String: Int] = [:]
        var albums: [AlbumEntry] = []
        var artists: [ArtistEntry] = []
        var folders: [String: Int] = [:]
        var parentKey: (directory: String, key: UInt64) = ("", SubsonicIDs.key("dir", ""))
        // CUE tracks are parts of an image a phone cannot be sent: the phone API lists the
        // image itself, as before CUE sheets were read (MPD clients get the tracks).
        database.visit("", recursive: true, showingTargets: true) { directory, song in
            guard song.target == nil else { return }
            let tag = song.tag
            let artistName = tag.firstWithFallback(.albumArtist) ?? ""
            let albumName = tag.first(.album) ?? ""
            let albumID = SubsonicIDs.albumKey(artist: artistName, album: albumName)
            let uri = directory.isEmpty ? song.name : directory + "/" + song.name
            let top = StoragePath.firstSegment(uri)
            let folder: Int
            if let known = folders[top] {
                folder = known
            } else {
                if case .mounted(let mount, _) = location(uri) { folder = SubsonicIDs.folder(mount) } else { folder = SubsonicIDs.folder(nil) }
                folders[top] = folder
            }
            let albumAt: Int
            if let known = albumKeys[albumID] {
                albumAt = known
            } else {
                let artistAt: Int
                if let known = artistKeys[artistName] {
                    artistAt = known
                } else {
                    artistAt = artists.count
                    artistKeys[artistName] = artistAt
                    artists.append(ArtistEntry(key: SubsonicIDs.artistKey(artistName), name: artistName, albums: []))
                }
                albumAt = albums.count
                albumKeys[albumID] = albumAt
                albums.append(
                    AlbumEntry(
                        key: albumID, name: albumName, artist: artistName, artistIndex: artistAt, songs: [], year: nil, genre: nil,
                        duration: 0, created: Int64.max, folders: []))
                artists[artistAt].albums.append(albumAt)
            }
            albums[albumAt].duration += tag.duration ?? 0
            albums[albumAt].created = min(albums[albumAt].created, song.added ?? song.modified)
            albums[albumAt].year = albums[albumAt].year ?? ItemNodes.year(tag)
            albums[albumAt].genre = albums[albumAt].genre ?? tag.first(.genre)
            albums[albumAt].folders.insert(folder)
            if parentKey.directory != directory { parentKey = (directory, SubsonicIDs.key("dir", directory)) }
            songs.append(SongEntry(key: SubsonicIDs.songKey(uri), parentKey: parentKey.key, directory: directory, song: song, album: albumAt, folder: folder))
        }
        // One stable order for each: by id.
        // (Keys compare as their hex ids do: big-endian digits of the same length.)
        let songOrder = songs.indices.sorted { songs[$0].key < songs[$1].key }
        let albumOrder = albums.indices.sorted { albums[$0].key < albums[$1].key }
        let artistOrder = artists.indices.sorted { artists[$0].key < artists[$1].key }
        var albumRank = [Int](repeating: 0, count: albums.count)
        for (rank, index) in albumOrder.enumerated() { albumRank[index] = rank }
        var artistRank = [Int](repeating: 0, count: artists.count)
        for (rank, index) in artistOrder.enumerated() { artistRank[index] = rank }
        var sortedSongs: [SongEntry] = []
        sortedSongs.reserveCapacity(songs.count)
        for index in songOrder {
            let entry = songs[index]
            sortedSongs.append(SongEntry(key: entry.key, parentKey: entry.parentKey, directory: entry.directory, song: entry.song, album: albumRank[entry.album], folder: entry.folder))
        }
        var sortedAlbums: [AlbumEntry] = albumOrder.map { index in
            let album = albums[index]
            return AlbumEntry(
                key: album.key, name: album.name, artist: album.artist, artistIndex: artistRank[album.artistIndex], songs: [], year: album.year,
                genre: album.genre, duration: album.duration, created: album.created, folders: album.folders)
        }
        for (index, entry) in sortedSongs.enumerated() { sortedAlbums[entry.album].songs.append(index) }
        for index in sortedAlbums.indices {
            sortedAlbums[index].songs.sort { ItemNodes.precedes(sortedSongs[$0], sortedSongs[$1]) }
        }
        let sortedArtists: [ArtistEntry] = artistOrder.map { index in
            let artist = artists[index]
            let owned = artist.albums.map { albumRank[$0] }.sorted { sortedAlbums[$0].name < sortedAlbums[$1].name }
            return ArtistEntry(key: artist.key, name: artist.name, albums: owned)
        }
        self.songs = sortedSongs
        self.albums = sortedAlbums
        self.artists = sortedArtists
        songIndex = Dictionary(sortedSongs.enumerated().map { ($1.key, $0) }, uniquingKeysWith: { first, _ in first })
        albumIndex = Dictionary(sortedAlbums.enumerated().map { ($1.key, $0) }, uniquingKeysWith: { first, _ in first })
        artistIndex = Dictionary(sortedArtists.enumerated().map { ($1.key, $0) }, uniquingKeysWith: { first, _ in first })
    }

    /// Folded search text of every artist, album and song, made at the first search.
    struct Haystacks: Sendable {
        let artists: [String], albums: [String], songs: [String]
    }
    private let haystacks = Mutex<Haystacks?>(nil)

    var searchText: Haystacks {
        if let known = haystacks.withLock({ $0 }) { return known }
        let artists = self.artists.map { SearchText.fold($0.name) }
        let albums = self.albums.map { SearchText.fold($0.name + "\u{1}" + $0.artist) }
        let songs = self.songs.map { entry in
            let tag = entry.song.tag
            return SearchText.fold(
                [tag.first(.title) ?? entry.song.name, tag.first(.artist) ?? "", self.albums[entry.album].name, self.albums[entry.album].artist]
                    .joined(separator: "\u{1}"))
        }
        let made = Haystacks(artists: artists, albums: albums, songs: songs)
        haystacks.withLock { $0 = made }
        return made
    }

    /// The path a directory id names (made on first use: folder browsing is rare).
    public func directoryPath(_ id: String) -> String? {
        guard SubsonicIDs.isWellFormed(id, prefix: "d") else { return nil }
        if let known = directoryPaths.withLock({ $0 }) { return known[id] }
        var paths: [String: String] = [:]
        func walk(_ directory: LibraryDirectory, _ path: String) {
            paths[SubsonicIDs.directory(path)] = path
            for child in directory.directories { walk(child, path.isEmpty ? child.name : path + "/" + child.name) }
        }
        walk(root, "")
        directoryPaths.withLock { $0 = paths }
        return paths[id]
    }

    public func song(_ id: String) -> SongEntry? {
        guard let key = SubsonicIDs.key(of: id, prefix: "s"), let index = songIndex[key] else { return nil }
        return songs[index]
    }

    public func songIndex(_ id: String) -> Int? { SubsonicIDs.key(of: id, prefix: "s").flatMap { songIndex[$0] } }

    /// Positions of an album and an artist in their lists.
    public func albumPosition(_ id: String) -> Int? { SubsonicIDs.key(of: id, prefix: "a").flatMap { albumIndex[$0] } }
    public func artistPosition(_ id: String) -> Int? { SubsonicIDs.key(of: id, prefix: "r").flatMap { artistIndex[$0] } }

    public func album(_ id: String) -> AlbumEntry? {
        guard let index = albumPosition(id) else { return nil }
        return albums[index]
    }

    public func artist(_ id: String) -> ArtistEntry? {
        guard let index = artistPosition(id) else { return nil }
        return artists[index]
    }
}
