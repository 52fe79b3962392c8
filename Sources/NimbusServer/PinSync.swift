import NimbusCore
import NimbusModel
import NimbusOffline
import NimbusSupport

/// Turns pins into the cloud songs they hold — a folder's songs (also those a later `update`
/// added), a song, a stored playlist's cloud songs — and tells the downloads again whenever
/// the database, a stored playlist or the mounts change. Songs in the local music directory
/// are on disk anyway and are left out.
@CoreActor
final class PinSync: IdleListener {
    private let offline: OfflineDownloads
    /// Weak: the idle bus holds this listener and may outlive the context (an update thread
    /// of a stopped in-process daemon still emits).
    private weak var context: ServerContext?

    init(offline: OfflineDownloads, context: ServerContext) {
        self.offline = offline
        self.context = context
    }

    var idlePartition: String { "default" }

    func idleEventsOccurred(_ events: IdleEvents) {
        if !events.isDisjoint(with: [.database, .storedPlaylist, .mount]) { sync() }
    }

    func sync() {
        guard context != nil else { return }
        offline.resync { songs(of: $0) }
    }

    /// Whether a URI lies in a mounted cloud account (what a pin can keep).
    func isPinnable(_ uri: String) -> Bool { context?.songs.location(of: uri).isMounted ?? false }

    private func songs(of pin: Pin) -> [String] {
        guard let context, let database = context.library?.database else { return [] }
        switch pin.kind {
        case .song:
            return isPinnable(pin.name) && database.song(at: pin.name) != nil ? [pin.name] : []
        case .folder:
            guard isPinnable(pin.name) else { return [] }
            var uris: [String] = []
            database.visit(pin.name, recursive: true) { path, song in uris.append(StoragePath.join(path, song.name)) }
            return uris
        case .playlist:
            let entries = (try? context.playlists?.load(pin.name)) ?? []
            var seen = Set<String>()
            return entries.filter { isPinnable($0) && seen.insert($0).inserted }
        }
    }
}
