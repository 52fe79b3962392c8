import Foundation
import NimbusAnalysis
import NimbusArtwork
import NimbusConfig
import NimbusCore
import NimbusDecoder
import NimbusInput
import NimbusLibrary
import NimbusModel
import NimbusServer
import NimbusSources
import NimbusStickers
import NimbusStorage
import NimbusSubsonic
import NimbusSupport
import NimbusTranscode
import NimbusWeb

/// The phone API put together: its users (config blocks and the run-time file beside the
/// state file), and what it reads of the daemon — the database snapshot, songs opened
/// through the storage (so cloud and share songs come through the range cache), covers as
/// the page scales them, the stickers and the stored playlists.
@CoreActor
enum SubsonicSetup {
    static func service(
        configuration: DaemonConfiguration, server: Server, library: MusicLibrary, mounted: MountedStorage, covers: WebCovers,
        partitions: PartitionSet, cache: RangeCache, executors: Executors, logger: Logger, podcasts: SubsonicPodcasts?
    ) -> SubsonicService {
        let users = configuration.subsonicUsers.map { SubsonicUser(name: $0.name, password: $0.password, permissions: $0.permissions) }
        let accounts = SubsonicAccounts(configured: users, file: configuration.stateFile + ".subsonic", logger: logger)
        let context = server.context
        let songs = context.songs
        var backend = SubsonicBackend(
            location: { uri in SongLocation(uri) { mounted.isMountPoint($0) } },
            mounts: { mounted.mountNames },
            open: { uri in
                let stream = try songs.storage.open(uri, purpose: .playing)
                // Cached bytes of a file replaced on the server are never sent as the new one.
                try stream.confirmFreshness()
                return stream
            },
            cover: { database, uri, size in
                covers.cover(CoverRequest(uri: uri, size: size == 0 ? 1024 : size), database: database, songs: songs)
            },
            startScan: { @CoreActor in _ = try? library.update("") },
            scanning: { @CoreActor in library.updatingJobID != nil },
            playing: { @CoreActor in
                let partition = partitions.defaultPartition
                return partition.state == .stop ? nil : partition.currentItem?.song.uri
            })
        backend.placeholderCover = { size in CoverPlaceholder.jpeg(size: size) }
        backend.playlists = context.playlists
        backend.podcasts = podcasts
        backend.radioPlaylist = configuration.subsonic.radioPlaylist
        backend.comments = { uri in try songs.metadata(of: uri, picture: false).comments }
        backend.decoder = { uri in try songs.openDecoder(for: Song(uri: uri), replayGain: ReplayGainSettings(), mixRamp: false) }
        backend.transcodes = TranscodeStore(cache: cache)
        if let store = context.analysis?.store {
            backend.replayGain = { uri, modified in
                guard let measured = store.loudness(of: uri, modified: modified) else { return nil }
                // Rounded as tags are written, so a phone shows "−3.80 dB", not a float's tail.
                func rounded(_ value: Double, _ places: Double) -> Double { (value * places).rounded() / places }
                return SubsonicReplayGain(
                    trackGain: rounded(measured.track.gain, 100), trackPeak: rounded(measured.track.peak, 1e6),
                    albumGain: measured.album.map { rounded($0.gain, 100) }, albumPeak: measured.album.map { rounded($0.peak, 1e6) })
            }
        }
        let jukeboxName = configuration.subsonic.jukeboxPartition
        backend.jukebox = { @CoreActor in
            if let partition = partitions.named(jukeboxName) { return partition }
            logger.notice("jukebox: creating the partition \"\(jukeboxName)\"")
            return partitions.add(named: jukeboxName)
        }
        backend.transcodeDefaults = transcodeDefaults(configuration.subsonic.transcode, over: nil, clients: configuration.subsonic.originalClients)
        for user in configuration.subsonicUsers where user.transcode != TranscodeSetting() {
            backend.userTranscodeDefaults[user.name] = transcodeDefaults(
                user.transcode, over: configuration.subsonic.transcode, clients: configuration.subsonic.originalClients)
        }
        backend.emit = { @CoreActor events in context.idle.emit(events) }
        backend.stickers = SubsonicStickers(
            read: { @CoreActor type, names in
                guard let store = context.stickers else { return [:] }
                var result: [String: [String: String]] = [:]
                for name in names {
                    for (uri, value) in (try? store.find(type: type, prefix: "", name: name)) ?? [] { result[uri, default: [:]][name] = value }
                }
                return result
            },
            change: { @CoreActor changes in
                guard let store = context.stickers else { return "Stickers are not enabled (no sticker_file)" }
                do throws(StickerStore.Failure) {
                    for change in changes {
                        switch change {
                        case .set(let type, let uri, let name, let value): try store.set(type: type, uri: uri, name: name, value: value)
                        case .add(let type, let uri, let name, let by): try store.add(type: type, uri: uri, name: name, value: String(by))
                        case .delete(let type, let uri, let name): _ = try store.delete(type: type, uri: uri, name: name)
                        }
                    }
                } catch {
                    logger.error("stickers: \(error.description)")
                    return "Cannot store the change"
                }
                context.idle.emit(.sticker)
                return nil
            })
        let queues = SubsonicPlayQueues(file: configuration.stateFile + ".subsonic-queues", logger: logger)
        let service = SubsonicService(
            accounts: accounts, playQueues: queues, backend: backend, database: library.database, serverVersion: Version.string,
            executors: executors, logger: logger)
        context.apiUsers = APIUsers(accounts: accounts)
        context.idle.add(SubsonicWatch(service: service, library: library))
        return service
    }

    /// A user's setting over the box's: `raw` or a bit rate of 0 means the original.
    static func transcodeDefaults(_ setting: TranscodeSetting, over box: TranscodeSetting?, clients: [String]) -> TranscodeDefaults {
        let format = setting.format ?? box?.format
        let kbps = format == "raw" ? 0 : setting.kbps ?? box?.kbps ?? (format == nil ? 0 : TranscodeFormat(rawValue: format!)?.defaultKbps ?? 0)
        return TranscodeDefaults(format: format.flatMap(TranscodeFormat.init(rawValue:)), kbps: kbps, originalClients: Set(clients))
    }

    /// `/rest/` alone on `subsonic { port … }` (the page and its WebSockets are not there).
    static func ownPort(_ port: Int, settings page: WebServer.Settings, configuration: DaemonConfiguration, logger: Logger) -> WebServer? {
        let addresses = configuration.subsonic.bindAddresses ?? configuration.web.addresses(mpd: configuration.bindAddresses)
        var settings = WebServer.Settings(addresses: addresses, port: port, hosts: page.hosts)
        settings.version = page.version
        settings.api = page.api
        settings.apiOnly = true
        do {
            let server = try WebServer(settings: settings, logger: logger, covers: nil) { _ in nil }
            logger.notice("Subsonic API on \(server.listeningOn.joined(separator: ", "))")
            return server
        } catch {
            logger.error("Subsonic API port \(port): \(error); the API is served on the web page's port only")
            return nil
        }
    }
}

/// Hands the API each new database and tells it when stickers changed, as the idle bus
/// reports them to MPD clients.
@CoreActor
final class SubsonicWatch: IdleListener {
    let service: SubsonicService
    /// Weak: the idle bus may outlive an in-process daemon's library.
    weak var library: MusicLibrary?

    init(service: SubsonicService, library: MusicLibrary) {
        self.service = service
        self.library = library
    }

    var idlePartition: String { "default" }

    func idleEventsOccurred(_ events: IdleEvents) {
        if events.contains(.database), let library { service.databaseChanged(library.database) }
        if events.contains(.sticker) { service.stickersChanged() }
    }
}

/// The MPD-port commands' view of the API's users.
@CoreActor
final class APIUsers: APIUserControl {
    let accounts: SubsonicAccounts
    init(accounts: SubsonicAccounts) { self.accounts = accounts }

    var users: [(name: String, permissions: Permission, configured: Bool, keys: [(id: String, label: String, created: Int64)])] {
        accounts.listing.map { ($0.name, $0.permissions, $0.configured, $0.keys) }
    }

    func addUser(_ name: String, password: String, permissions: Permission) throws(APIUserFailure) {
        do { try accounts.addUser(name, password: password, permissions: permissions) } catch { throw APIUserFailure(error.description) }
    }

    func removeUser(_ name: String) throws(APIUserFailure) {
        do { try accounts.removeUser(name) } catch { throw APIUserFailure(error.description) }
    }

    func addKey(user: String, label: String) throws(APIUserFailure) -> (id: String, key: String) {
        do { return try accounts.addKey(user: user, label: label) } catch { throw APIUserFailure(error.description) }
    }

    func removeKey(_ id: String) throws(APIUserFailure) {
        do { try accounts.removeKey(id) } catch { throw APIUserFailure(error.description) }
    }
}
