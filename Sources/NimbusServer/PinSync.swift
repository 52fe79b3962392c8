import NimbusCore
import NimbusLibrary
import NimbusModel
import NimbusOffline
import NimbusSources
import NimbusSupport

/// Turns pins into the cloud songs they hold — a folder's songs (also those a later `update`
/// added), a song, a stored playlist's cloud songs — and tells the downloads again whenever
/// the database, a stored playlist or the mounts change. Songs in the local music directory
/// are on disk anyway and are left out.
@CoreActor
final class PinSync: IdleListener {
    /// What the pins are resolved against, held by the context alone.
    final class Sources {
        let songs: SongSources
        let library: MusicLibrary?
        let playlists: PlaylistStore?
        init(songs: SongSources, library: MusicLibrary?, playlists: PlaylistStore?) {
            self.songs = songs
            self.library = library
            self.playlists = playlists
        }
    }

    private let offline: OfflineDownloads
    /// Weak: the idle bus holds this listener and may outlive the context (an update thread
    /// of a stopped in-process daemon still emits). Weak to this holder rather than to the
    /// context: a weak reference gives its object a side table, and every retain of an object
    /// with one takes the runtime's slow path — the context is retained on every command.
    private weak var sources: Sources?

    init(offline: OfflineDownloads, sources: Sources) {
        self.offline = offline
        self.sources = sources
    }

    var idlePartition: String { "default" }

    func idleEventsOccurred(_ events: IdleEvents) {
        if !events.isDisjoint(with: [.database, .storedPlaylist, .mount]) { sync() }
    }

    func sync() {
        guard sources != nil else { return }
        offline.resync { songs(of: $0) }
    }

    /// Whether a URI lies in a mounted cloud account (what a pin can keep).
    func isPinnable(_ uri: String) -> Bool { sources?.songs.location(of: uri).isMounted ?? false }

    private func songs(of pin: Pin) -> [String] {
        guard let sources, let database = sources.library?.database else { return [] }
        switch pin.kind {
        case .song:
            guard isPinnable(pin.name), let song = database.song(at: pin.name) else { return [] }
            // A CUE track is a part of its image: the image is what is kept.
            if let target = song.target { return [target.uri] }
            return [pin.name]
        case .folder:
            guard isPinnable(pin.name) else { return [] }
            var uris: [String] = []
            // The files themselves: CUE images rather than the tracks that point into them.
            database.visit(pin.name, recursive: true, showingTargets: true) { path, song in
                if song.target == nil { uris.append(StoragePath.join(path, song.name)) }
            }
            return uris
        case .playlist:
            let entries = (try? sources.playlists?.load(pin.name)) ?? []
            var seen = Set<String>()
            return entries.filter { isPinnable($0) && seen.insert($0).inserted }
        }
    }
}
