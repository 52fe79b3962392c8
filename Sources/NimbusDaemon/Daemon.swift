import NimbusModel
import Foundation
import NimbusAnalysis
import Glibc
import NimbusArtwork
import NimbusConfig
import NimbusCore
import NimbusDecoder
import NimbusInput
import NimbusLibrary
import NimbusOffline
import NimbusOutput
import NimbusPCM
import NimbusPodcasts
import NimbusProtocol
import NimbusServer
import NimbusSources
import NimbusStickers
import NimbusStorage
import NimbusSupport
import NimbusWeb
import NimbusZeroconf

/// The composition root: builds every service from the configuration and wires them. The
/// executable and the in-process test server both build their daemon here, so the tests run
/// the wiring users get.
@CoreActor
public final class Daemon {
    public let configuration: DaemonConfiguration
    public let logger: Logger
    public let server: Server
    public let library: MusicLibrary
    public let partitions: PartitionSet
    let cloud: CloudAccounts
    let mounted: MountedStorage
    let mounts: Mounts
    let offline: OfflineDownloads
    /// The loudness analysis pass; nil with `loudness_analysis "no"`.
    let analysis: AnalysisPass?
    private var busyWatch: BusyWatch?
    let accountManager: CloudAccountManager
    let podcasts: PodcastManager
    /// Every pool of blocking work, declared in one place (`Executors`) and handed out below.
    let executors = Executors()
    private var watcher: LibraryWatcher?
    /// Token files written or removed behind the daemon's back (a sign-in, a sign-out).
    private var credentialWatch: FileWatch?
    /// Set while the first scan of a new database runs: the queue is restored after it, so
    /// its songs can be found.
    private var pendingRestore = false
    private var stopped = false
    private var announcer: ServiceAnnouncer?
    /// The web page's server; nil when `web { enabled "no" }` or it could not listen.
    private var web: WebServer?
    /// The API on a port of its own (`subsonic { port … }`).
    private var subsonicWeb: WebServer?
    /// After a clean shutdown (the executable exits here).
    private let onShutdown: @CoreActor () -> Void

    public init(
        configuration: DaemonConfiguration, logger: Logger, decoders: DecoderRegistry = .standard,
        outputs: OutputRegistry = .standard, onShutdown: @escaping @CoreActor () -> Void = {}
    ) {
        self.configuration = configuration
        self.logger = logger
        self.onShutdown = onShutdown
        let idle = IdleBus(reactor: CoreActor.loop.reactor)
        var warnings: [String] = []
        let accounts = CloudProviderRegistry.standard.accounts(
            configuration.cloud(warnings: &warnings), secretsDirectory: configuration.secretsDirectory, warnings: &warnings)
        for warning in warnings { logger.warning("config: \(warning)") }
        let accountFile = RuntimeAccountFile(path: configuration.stateFile + ".accounts", logger: logger.domain("cloud"))
        let added = accountFile.load().filter { account in
            guard !accounts.contains(where: { $0.name == account.name }) else {
                logger.warning("the account \"\(account.name)\" added by a client now has a cloud block in the config; the block wins")
                return false
            }
            return true
        }
        cloud = CloudAccounts(
            accounts: accounts.map(CloudAccounts.Account.init),
            cache: RangeCache(
                directory: configuration.cacheDirectory + "/ranges", budget: configuration.cacheSize,
                revalidateAfter: .seconds(configuration.cacheRevalidate), logger: logger.domain("cache")),
            stateDirectory: configuration.cacheDirectory + "/accounts", logger: logger.domain("cloud"), work: executors.commands)
        mounted = MountedStorage(
            root: LocalStorage(
                root: configuration.musicDirectory, followOutsideSymlinks: configuration.followOutsideSymlinks,
                followInsideSymlinks: configuration.followInsideSymlinks))
        library = MusicLibrary(
            storage: mounted, registry: decoders, musicDirectory: configuration.musicDirectory,
            databasePath: configuration.databaseFile, logger: logger.domain("update"))
        let songs = SongSources(storage: mounted, registry: decoders, http: HTTPFiles(accounts: cloud))
        partitions = PartitionSet(
            idle: idle, songs: songs, replayGain: Self.replayGain(configuration), rates: .soxr(configuration.resampler),
            remoteTagWork: executors.remoteTags,
            maxQueueLength: configuration.maxPlaylistLength,
            logger: logger.domain("player"))
        partitions.sleepFade = Double(configuration.sleepFade)
        partitions.keepState(
            at: configuration.stateFile, interval: .seconds(configuration.stateFileInterval), logger: logger.domain("state_file"))
        partitions.defaultPartition.outputs.install(
            OutputSetup.outputs(
                from: configuration.audioOutputs, registry: outputs,
                defaults: OutputSetup.Defaults(
                    format: configuration.audioOutputFormat, mixer: configuration.mixerType.flatMap(MixerKind.init(rawValue:)),
                    normalize: configuration.volumeNormalization,
                    filters: OutputFilters.named(configuration.filterBlocks, logger: logger.domain("output"))),
                logger: logger.domain("output")))
        partitions.defaultPartition.setOptions { $0.replayGainMode = configuration.replayGainMode }
        mounts = Mounts(
            storage: mounted, cloud: cloud, library: library, path: configuration.stateFile + ".mounts",
            secretsDirectory: configuration.secretsDirectory, multicast: configuration.zeroconfEnabled, logger: logger.domain("mount"))
        for account in added { cloud.add(account, atRunTime: true) }
        mounts.restore(
            accounts: accounts.filter(\.mountAtStart).map(\.name)
                + added.filter { !["no", "false", "0"].contains($0.settings["mount"] ?? "yes") }.map(\.name))
        // The config's `pin` lines are folders (or songs) of their account; shown as pins.
        let configured = accounts.flatMap { account in
            account.pins.map { folder -> Pin in
                let inner = folder.split(separator: "/").joined(separator: "/")
                return Pin(kind: .folder, name: inner.isEmpty ? account.name : account.name + "/" + inner, configured: true)
            }
        }
        offline = OfflineDownloads(
            storage: mounted, budget: configuration.cacheSize, cacheDirectory: configuration.cacheDirectory + "/ranges",
            path: Self.parent(configuration.stateFile) + "/offline", transfers: configuration.offlineTransfers, configured: configured,
            work: executors.commands, logger: logger.domain("offline")
        ) { @CoreActor in
            idle.emit(.offline)
        }
        accountManager = CloudAccountManager(
            cloud: cloud, mounts: mounts, library: library, offline: offline, file: accountFile,
            secretsDirectory: configuration.secretsDirectory, logger: logger.domain("cloud")
        ) { idle.emit($0) }
        let offline = offline
        credentialWatch = cloud.watchCredentials { _ in offline.accountsChanged() }
        let relay = KillRelay()
        var services = ServerServices(partitions: partitions, songs: songs, library: library, mounts: mounts) {
            relay.daemon?.shutdown(reason: "kill command")
        }
        services.offline = offline
        analysis = AnalysisSetup.pass(configuration, songs: songs, idle: idle, logger: logger.domain("analysis"))
        services.analysis = analysis
        busyWatch = AnalysisSetup.watchBusy(analysis, configuration: configuration, partitions: partitions, library: library, idle: idle)
        services.commandWork = executors.commands
        services.accounts = accountManager
        let http = HTTPFiles(accounts: cloud)
        podcasts = PodcastManager(
            shows: PodcastShows(path: configuration.stateFile + ".podcasts", http: http, logger: logger.domain("podcasts")), http: http,
            mounted: mounted, library: library, offline: offline, interval: configuration.podcastRefreshInterval,
            work: executors.podcasts, logger: logger.domain("podcasts"))
        services.podcasts = podcasts
        services.sound = SoundLibrary(
            presetsDirectory: Self.parent(configuration.stateFile) + "/presets", choicesFile: configuration.stateFile + ".sound",
            partitions: partitions, logger: logger.domain("sound"))
        services.playlists = PlaylistStore(
            directory: configuration.playlistDirectory, maxLength: configuration.maxPlaylistLength,
            musicDirectory: configuration.musicDirectory, absolutePaths: configuration.absolutePlaylistPaths,
            logger: logger.domain("playlist"))
        server = Server(
            context: ServerContext(
                settings: Self.serverSettings(configuration), logger: logger.domain("client"), idle: idle, services: services))
        library.onEvents = { idle.emit($0) }
        let context = server.context
        podcasts.pinsChanged = { Task { @CoreActor in context.syncPins(); idle.emit(.offline) } }
        // Weak: an update thread or a timer may outlive an in-process daemon that was stopped.
        library.onInstalled = { [weak self] _ in self?.installed() }
        relay.daemon = self
    }

    /// Binds (then drops root for `user`), loads or builds the database, restores the state
    /// file. No client is served before this returns: the loop is busy running it.
    public func start(activated: [ListeningSocket.Bound] = []) throws(SystemError) {
        try server.start(activated: activated)
        if let user = configuration.user, getuid() == 0 {
            try Privileges.drop(to: user)
            logger.info("running as \(user)")
        }
        for directory in [configuration.playlistDirectory, configuration.cacheDirectory]
            + [configuration.databaseFile, configuration.stateFile, configuration.stickerFile].map(Self.parent)
        {
            try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        }
        removeLeftovers()
        server.context.useStickers(Self.openStickers(configuration, logger: logger.domain("sticker")))
        if configuration.resumeMinimumLength > 0 {
            let store = StickerResume(context: server.context, logger: logger.domain("player"))
            let podcasts = podcasts
            store.onFinished = { uri in podcasts.episodeFinished(uri) }
            partitions.resume = ResumePolicy(store: store, minimumLength: configuration.resumeMinimumLength * 1000) {
                $0.hasPrefix(PodcastManager.mountName + "/")
            }
            partitions.keepResumePositions()
        }
        var scanning = false
        if !library.load() {
            if FileManager.default.fileExists(atPath: configuration.musicDirectory) {
                scanning = (try? library.update("")) != nil
            } else {
                logger.warning("music directory \"\(configuration.musicDirectory)\" does not exist")
            }
        }
        if scanning {
            pendingRestore = true
        } else {
            restoreState()
            server.context.syncPins()
            AnalysisSetup.libraryChanged(analysis, database: library.database, songs: server.context.songs)
        }
        if configuration.autoUpdate {
            watcher = LibraryWatcher(
                library: library, root: configuration.musicDirectory, depth: configuration.autoUpdateDepth,
                logger: logger.domain("inotify"))
        }
        startWebPage()
        podcasts.start()
        logger.notice(
            "Nimbus \(Version.string) ready on \(server.listeningOn.joined(separator: ", ")); protocol \(ProtocolVersion.current)"
                + (web.map { "; web page " + $0.listeningOn.joined(separator: ", ") } ?? ""))
        logTrafficPeriodically(previous: nil)
        announceOnTheLAN()
    }

    /// Stops serving, saves the state file and stops every player; then `onShutdown`.
    public func shutdown(reason: String) {
        guard !stopped else { return }
        stopped = true
        logger.notice("shutting down (\(reason))")
        if let summary = cloud.cache.counters.summary(accounts: Set(mounted.mountNames)) {
            logger.domain("cache").notice("traffic: \(summary)")
        }
        announcer?.stop()
        podcasts.stop()
        web?.stop()
        subsonicWeb?.stop()
        server.stop()
        offline.stop()
        analysis?.stop()
        credentialWatch?.stop()
        partitions.shutdown()
        server.context.stickers?.checkpoint()
        onShutdown()
    }

    /// Temporary files of writes a crash interrupted (playlists, listings, state): gone at start.
    private func removeLeftovers() {
        let directories = Set(
            [configuration.playlistDirectory, configuration.cacheDirectory + "/accounts", Self.parent(configuration.stateFile)])
        for directory in directories.sorted() {
            let removed = AtomicFile.removeLeftovers(inDirectory: directory)
            if !removed.isEmpty { logger.info("removed \(removed.count) unfinished temporary files in \(directory)") }
        }
    }

    /// A new database is in place: refresh the watcher, persist listings, restore (the pins
    /// follow the database through the `database` idle event).
    private func installed() {
        AnalysisSetup.libraryChanged(analysis, database: library.database, songs: server.context.songs)
        watcher?.refresh()
        mounted.flush()
        if pendingRestore {
            pendingRestore = false
            restoreState()
        }
    }

    /// Library songs are looked up again (a file removed meanwhile is dropped); URLs and
    /// files named by absolute path come back as saved.
    private func restoreState() {
        let database = library.database
        partitions.restore(restorePaused: configuration.restorePaused) { entry in
            // Mounted or not, a file of the library's tree is looked up in the database.
            guard SongLocation(entry.song.uri, isMount: { _ in false }).isInLibrary else { return entry.song }
            return StoragePath.isSafe(entry.song.uri) ? database.song(at: entry.song.uri) : nil
        }
    }

    /// The web page, on its own port: each of its WebSockets becomes an MPD session of this
    /// server through a socket pair (the page's end for the web thread, ours adopted here);
    /// `/rest/` (the Subsonic API) on it and on its own port when one is set.
    private func startWebPage() {
        var settings = WebServer.Settings(
            addresses: configuration.web.addresses(mpd: configuration.bindAddresses), port: configuration.web.port,
            hosts: HostCheck(extraNames: configuration.web.hosts))
        settings.version = Version.string
        for block in configuration.audioOutputs where block.value("type") == "httpd" {
            settings.streams[block.value("name") ?? "httpd"] = Int(block.value("port") ?? "8000") ?? 8000
        }
        let server = server, library = library
        // Covers over HTTP carry no session: they are served only where anyone may read.
        let covers = WebCovers(workers: executors.covers, logger: logger.domain("web")) { @CoreActor in
            server.context.settings.defaultPermissions.contains(.read) ? (library.database, server.context.songs) : nil
        }
        // The API's users can be managed (MPD-port commands) even while no port serves it.
        if configuration.subsonic.enabled {
            let service = SubsonicSetup.service(
                configuration: configuration, server: server, library: library, mounted: mounted, covers: covers, partitions: partitions,
                cache: cloud.cache, executors: executors, logger: logger.domain("subsonic"),
                podcasts: SubsonicPodcastSetup.podcasts(
                    podcasts, offline: offline, mounted: mounted, context: server.context, work: executors.podcasts))
            settings.api = service.handler
            if let port = configuration.subsonic.port {
                subsonicWeb = SubsonicSetup.ownPort(port, settings: settings, configuration: configuration, logger: logger.domain("subsonic"))
            }
        }
        guard configuration.web.enabled else { return }
        do {
            // The home-screen icons as PNG (drawn once, ~10 ms), beside the page's own files.
            let icons = [192, 512].compactMap { size in AppIcon.png(size: size).map { (name: "icon-\(size).png", bytes: $0) } }
            web = try WebServer(settings: settings, assets: WebAssets.standard.adding(icons), logger: logger.domain("web"), covers: covers.source) { peer in
                var fds: [Int32] = [-1, -1]
                guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &fds) == 0
                else { return nil }
                let ours = fds[1]
                Task { @CoreActor in server.adopt(fd: ours, peer: "web " + peer) }
                return fds[0]
            }
        } catch {
            logger.error("web page: \(error.description); the page is off (the MPD port is not affected)")
        }
    }

    /// Zeroconf as MPD has it (`zeroconf_enabled`, `zeroconf_name`), except that a daemon
    /// listening only on loopback addresses is not announced: nobody on the LAN could connect.
    private func announceOnTheLAN() {
        guard configuration.zeroconfEnabled else { return }
        let network = configuration.bindAddresses.filter { !$0.hasPrefix("/") && !$0.hasPrefix("@") }
        let loopback = ["127.0.0.1", "localhost", "::1", "[::1]"]
        guard network.contains(where: { !loopback.contains($0.lowercased()) }) else {
            logger.info("zeroconf: listening on loopback only; not announcing")
            return
        }
        announcer = ServiceAnnouncer(name: configuration.zeroconfName, port: configuration.port, logger: logger.domain("zeroconf"))
    }

    /// What the cloud accounts cost in network bytes, and what the cache saved: logged once a
    /// minute when it changed, and at shutdown.
    private func logTrafficPeriodically(previous: String?) {
        let summary = cloud.cache.counters.summary(accounts: Set(mounted.mountNames))
        if let summary, summary != previous { logger.domain("cache").info("traffic: \(summary)") }
        CoreActor.loop.reactor.schedule(after: .seconds(60)) { [weak self] in
            guard let self, !self.stopped else { return }
            self.logTrafficPeriodically(previous: summary)
        }
    }

    /// The sticker database, or nil with the reason logged: the `sticker` commands then answer
    /// that it is disabled, as MPD's do (it is no playback error, so not in `status`).
    private static func openStickers(_ configuration: DaemonConfiguration, logger: Logger) -> StickerStore? {
        try? FileManager.default.createDirectory(atPath: parent(configuration.stickerFile), withIntermediateDirectories: true)
        do {
            return try StickerStore(path: configuration.stickerFile)
        } catch {
            let problem = error.message.hasPrefix("sticker database") ? error.message : "\(error.message); stickers are disabled"
            logger.error(problem)
            return nil
        }
    }

    private static func parent(_ path: String) -> String { (path as NSString).deletingLastPathComponent }

    private static func replayGain(_ configuration: DaemonConfiguration) -> ReplayGainSettings {
        var settings = ReplayGainSettings()
        settings.preamp = configuration.replayGainPreamp
        settings.missingPreamp = configuration.replayGainMissingPreamp
        settings.limit = configuration.replayGainLimit
        return settings
    }

    static func serverSettings(_ config: DaemonConfiguration) -> ServerSettings {
        ServerSettings(
            bindAddresses: config.bindAddresses,
            runtimeSocket: config.bindAddressConfigured
                ? nil : ConfigSearch.runtimeSocket(environment: ProcessInfo.processInfo.environment, effectiveUser: geteuid()),
            port: config.port,
            passwords: Dictionary(config.passwords.map { ($0.password, $0.permissions) }, uniquingKeysWith: { $1 }),
            defaultPermissions: config.defaultPermissions,
            localPermissions: config.localPermissions,
            connectionTimeout: config.connectionTimeout,
            maxConnections: config.maxConnections,
            maxCommandListSize: config.maxCommandListSize,
            maxOutputBufferSize: config.maxOutputBufferSize,
            musicDirectory: config.musicDirectory, enabledTags: config.enabledTags,
            maxPlaylistLength: config.maxPlaylistLength)
    }
}

/// Lets `kill`, wired before the daemon exists, reach it.
@CoreActor
private final class KillRelay {
    weak var daemon: Daemon?
}
