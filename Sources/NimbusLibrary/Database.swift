import NimbusModel
import NimbusStorage
import NimbusSupport
import Synchronization

/// One immutable state of the song database. The core swaps whole snapshots, so queries
/// never see an update half done.
public final class Database: Sendable {
    public let root: LibraryDirectory
    /// UNIX time of the last completed update (MPD's `db_update`), 0 if never.
    public let updated: Int64
    public let statistics: Statistics

    public struct Statistics: Sendable, Equatable {
        public var artists = 0
        public var albums = 0
        public var songs = 0
        /// Milliseconds.
        public var playtime = 0
    }

    public init(root: LibraryDirectory, updated: Int64) {
        self.root = root
        self.updated = updated
        self.statistics = Self.statistics(of: root)
    }

    /// A large snapshot gone (replaced by an update or a rescan, or the scan's own tree once
    /// encoded) leaves its songs' memory free in pieces: it is given back a second later. The
    /// trim an update ran when it finished could come before the last holder let go — the
    /// update thread, a client's answer — and a rescan then kept 10–25 MB of a 50,000-song
    /// library until the next update.
    deinit {
        if statistics.songs >= Heap.burstSongs { Heap.returnFreeMemorySoon() }
    }

    /// Answers of whole-library queries (`list album group albumartist`, `count group genre`)
    /// on this snapshot, which never changes: a client browsing asks them again and again, and
    /// the next update brings a new snapshot with an empty memo.
    private let memo = Mutex<(entries: [String: any Sendable], order: [String])>(([:], []))
    static let memoCapacity = 32

    /// `compute`'s answer for `key`, remembered.
    func remembered<T: Sendable>(_ key: String, _ compute: () throws(LibraryError) -> T) throws(LibraryError) -> T {
        if let known = memo.withLock({ $0.entries[key] }) as? T { return known }
        let value = try compute()
        memo.withLock { memo in
            if memo.entries.updateValue(value, forKey: key) == nil { memo.order.append(key) }
            if memo.order.count > Self.memoCapacity { memo.entries[memo.order.removeFirst()] = nil }
        }
        return value
    }

    public static let empty = Database(root: LibraryDirectory(name: ""), updated: 0)

    public func directory(at path: String) -> LibraryDirectory? { root.directory(at: path) }

    /// The song at a URI relative to the music directory.
    public func song(at uri: String) -> Song? {
        let directoryPath = StoragePath.parent(uri)
        guard let directory = root.directory(at: directoryPath),
            let song = directory.song(named: StoragePath.name(uri))
        else { return nil }
        return song.song(in: directoryPath)
    }

    /// Visits directories and songs below `path` in MPD's order: a directory's songs, then
    /// each subdirectory (reported to `directory`) followed by its contents when `recursive`.
    /// `showingTargets`: CUE sheets' image files are visited too (the phone API streams the
    /// image whole where it cannot stream a part of it).
    public func visit(
        _ path: String, recursive: Bool, showingTargets: Bool = false, directory visitDirectory: (String, LibraryDirectory) -> Void = { _, _ in },
        song visitSong: (String, LibrarySong) -> Void, playlist visitPlaylist: (String, LibraryPlaylist) -> Void = { _, _ in }
    ) {
        guard let start = root.directory(at: path) else { return }
        Self.walk(start, path: path, recursive: recursive, showingTargets: showingTargets, visitDirectory, visitSong, visitPlaylist)
    }

    /// The playlist file at `path` in the music folder, if the library knows one there.
    public func playlist(at path: String) -> LibraryPlaylist? {
        let name = StoragePath.name(path)
        return root.directory(at: StoragePath.parent(path))?.playlists.first { $0.name == name }
    }

    /// Every song below `path` (MPD's order), as the queue takes them — for `add DIR`. Walked
    /// here rather than through `visit` from the core actor: a closure made there is checked
    /// for its actor on each call, a tenth of an `add ""` of 50,000 songs (perf).
    public func songs(below path: String) -> [Song] {
        guard let start = root.directory(at: path) else { return [] }
        var songs: [Song] = []
        Self.walk(
            start, path: path, recursive: true, showingTargets: false, { _, _ in }, { directory, song in songs.append(song.song(in: directory)) },
            { _, _ in })
        return songs
    }

    private static func walk(
        _ directory: LibraryDirectory, path: String, recursive: Bool, showingTargets: Bool,
        _ visitDirectory: (String, LibraryDirectory) -> Void, _ visitSong: (String, LibrarySong) -> Void,
        _ visitPlaylist: (String, LibraryPlaylist) -> Void
    ) {
        // MPD's Directory::Walk: the songs, the playlists, then each folder.
        let hidden = showingTargets ? [] : directory.playlistTargets
        for song in directory.songs where !LibraryDirectory.hides(song, hidden) { visitSong(path, song) }
        for playlist in directory.playlists { visitPlaylist(path, playlist) }
        for child in directory.directories {
            let childPath = StoragePath.join(path, child.name)
            visitDirectory(childPath, child)
            if recursive { walk(child, path: childPath, recursive: true, showingTargets: showingTargets, visitDirectory, visitSong, visitPlaylist) }
        }
    }

    private static func statistics(of root: LibraryDirectory) -> Statistics {
        var statistics = Statistics()
        var artists = Set<String>()
        var albums = Set<String>()
        func walk(_ directory: LibraryDirectory) {
            let hidden = directory.playlistTargets
            for song in directory.songs where !LibraryDirectory.hides(song, hidden) {
                statistics.songs += 1
                statistics.playtime += song.tag.duration ?? 0
                for item in song.tag.items {
                    if item.type == .artist { artists.insert(item.value) }
                    if item.type == .album { albums.insert(item.value) }
                }
            }
            directory.directories.forEach(walk)
        }
        walk(root)
        statistics.artists = artists.count
        statistics.albums = albums.count
        return statistics
    }
}
