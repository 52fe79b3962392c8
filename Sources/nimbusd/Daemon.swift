import Foundation
import NimbusConfig
import NimbusCore
import NimbusDecoder
import NimbusLibrary
import NimbusModel
import NimbusServer
import NimbusInput
import NimbusStickers
import NimbusStorage
import NimbusSupport
import NimbusZeroconf

/// The composition root: builds every service from the configuration and wires them together.
@CoreActor
final class Daemon {
    /// The running daemon, for signal handlers that may fire before start-up finished.
    static var current: Daemon?

    let configuration: DaemonConfiguration
    let logger: Logger
    let server: Server
    let library: MusicLibrary
    let stateKeeper: StateKeeper
    let cloud: CloudAccounts
    let mounted: MountedStorage
    let mounts: Mounts
    /// (account, folder) kept entirely on disk.
    let pins: [(String, String)]
    private var watcher: LibraryWatcher?
    /// Set while the first scan of a new database runs: the queue is restored after it, so
    /// its songs can be found.
    private var pendingRestore: (@CoreActor () -> Void)?
    private var stopped = false
    private var announcer: ServiceAnnouncer?

    init(configuration: DaemonConfiguration, logger: Logger) {
        self.configuration = configuration
        self.logger = logger
        let idle = IdleBus(reactor: CoreActor.loop.reactor)
        let context = ServerContext(settings: Self.serverSettings(configuration), logger: logger.domain("client"), idle: idle)
        server = Server(context: context)
        let registry = DecoderRegistry.standard
        context.decoders = registry.plugins.map { DecoderDescription(name: $0.name, suffixes: $0.suffixes, mimeTypes: $0.mimeTypes) }
        var warnings: [String] = []
        let accounts = configuration.cloud(warnings: &warnings)
        for warning in warnings { logger.warning("config: \(warning)") }
        cloud = CloudAccounts(
            accounts: accounts.map { CloudAccounts.Account(name: $0.name, type: $0.type, root: $0.root, settings: $0.settings) },
            cache: RangeCache(
                directory: configuration.cacheDirectory + "/ranges", budget: configuration.cacheSize, logger: logger.domain("cache")),
            stateDirectory: configuration.cacheDirectory + "/accounts", logger: logger.domain("cloud"))
        mounted = MountedStorage(
            root: LocalStorage(root: configuration.musicDirectory, followOutsideSymlinks: configuration.followOutsideSymlinks))
        library = MusicLibrary(
            storage: mounted, registry: registry, musicDirectory: configuration.musicDirectory,
            databasePath: configuration.databaseFile, logger: logger.domain("update"))
        mounts = Mounts(
            storage: mounted, cloud: cloud, library: library, path: configuration.stateFile + ".mounts", logger: logger.domain("mount"))
        mounts.restore(accounts: accounts.filter(\.mountAtStart).map(\.name))
        pins = accounts.flatMap { account in account.pins.map { (account.name, $0) } }
        stateKeeper = StateKeeper(
            path: configuration.stateFile, logger: logger.domain("state_file"),
            interval: .seconds(configuration.stateFileInterval)
        ) { [unowned context] in context.partitions }
        library.onEvents = { idle.emit($0) }
        library.onInstalled = { [unowned self] _ in
            self.watcher?.refresh()
            for storage in self.cloud.all { storage.flush() }
            self.pinFolders()
            if let restore = self.pendingRestore {
                self.pendingRestore = nil
                restore()
            }
        }
        context.library = library
        context.playlists = PlaylistStore(
            directory: configuration.playlistDirectory, maxLength: configuration.maxPlaylistLength,
            musicDirectory: configuration.musicDirectory, absolutePaths: configuration.absolutePlaylistPaths)
        let partition = context.defaultPartition
        partition.outputs = OutputSetup.outputs(from: configuration.audioOutputs, logger: logger.domain("output"))
        SongSources.install(in: context, library: library, registry: registry, http: HTTPFiles(accounts: cloud))
        context.mounts = mounts
        context.storageProblem = { [unowned self] in self.cloud.firstFailure }
        var replayGain = ReplayGainSettings()
        replayGain.preamp = configuration.replayGainPreamp
        replayGain.missingPreamp = configuration.replayGainMissingPreamp
        replayGain.limit = configuration.replayGainLimit
        context.replayGain = replayGain
        context.defaultPartition.setOptions { $0.replayGainMode = configuration.replayGainMode }
        context.onStateChanged = { [unowned stateKeeper] in stateKeeper.changed() }
        context.onKill = { [unowned self] in self.shutdown(reason: "kill command") }
    }

    func start() throws(SystemError) {
        for directory in [configuration.playlistDirectory, configuration.cacheDirectory]
            + [configuration.databaseFile, configuration.stateFile, configuration.stickerFile].map(Self.parent)
        {
            try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
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
            pendingRestore = { [unowned self] in self.restoreState() }
        } else {
            restoreState()
        }
        if configuration.autoUpdate {
            watcher = LibraryWatcher(
                library: library, root: configuration.musicDirectory, depth: configuration.autoUpdateDepth,
                logger: logger.domain("inotify"))
        }
        do {
            server.context.stickers = try StickerStore(path: configuration.stickerFile)
        } catch {
            logger.error("\(error); stickers are disabled")
        }
        try server.start()
        logger.notice("Nimbus \(Version.string) ready; protocol 0.23.5")
        logTrafficPeriodically(previous: nil)
        announceOnTheLAN()
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
        let summary = cloud.cache.counters.summary
        if let summary, summary != previous { logger.domain("cache").info("traffic: \(summary)") }
        CoreActor.loop.reactor.schedule(after: .seconds(60)) { [unowned self] in self.logTrafficPeriodically(previous: summary) }
    }

    func shutdown(reason: String) {
        guard !stopped else { return }
        stopped = true
        logger.notice("shutting down (\(reason))")
        if let summary = cloud.cache.counters.summary { logger.domain("cache").notice("traffic: \(summary)") }
        announcer?.stop()
        server.stop()
        stateKeeper.save(synchronously: true)
        for partition in server.context.partitions { partition.shutdown() }
        exit(0)
    }

    /// Partitions, queues, options, outputs, volume and positions from the state file.
    /// Library songs are looked up again (a file removed meanwhile is dropped); URLs come
    /// back as saved; outputs listed under another partition move there first.
    private func restoreState() {
        guard let saved = stateKeeper.read() else {
            stateKeeper.start()
            return
        }
        let context = server.context
        let database = library.database
        for state in saved {
            let partition: Partition
            if state.partition == "default" {
                partition = context.defaultPartition
            } else if let existing = context.partition(named: state.partition) {
                partition = existing
            } else {
                partition = Partition(name: state.partition, maxQueueLength: configuration.maxPlaylistLength)
                context.addPartition(partition)
            }
            for (name, _) in state.outputs {
                for other in context.partitions where other !== partition {
                    if let output = other.outputs.first(where: { $0.name == name && !$0.isPlaceholder }) {
                        other.release(output)
                        partition.adopt(output)
                    }
                }
            }
            partition.restore(state, restorePaused: configuration.restorePaused) { entry in
                if entry.song.isRemote || entry.song.uri.hasPrefix("/") { return entry.song }
                return StoragePath.isSafe(entry.song.uri) ? database.song(at: entry.song.uri) : nil
            }
        }
        stateKeeper.start()
    }

    /// Songs in pinned folders are fetched whole, at the lowest priority, and never evicted.
    private func pinFolders() {
        guard !pins.isEmpty else { return }
        let database = library.database
        for (account, folder) in pins {
            guard let storage = mounted.mounted(account) as? CloudStorage else { continue }
            let base = folder.isEmpty || folder == "/" ? account : account + "/" + folder.drop { $0 == "/" }
            guard database.directory(at: base) != nil else { continue }
            database.visit(base, recursive: true, directory: { _, _ in }) { path, song in
                let uri = StoragePath.join(path, song.name)
                storage.pin(String(uri.dropFirst(account.count + 1)))
            }
        }
    }

    private static func parent(_ path: String) -> String { (path as NSString).deletingLastPathComponent }

    static func serverSettings(_ config: DaemonConfiguration) -> ServerSettings {
        ServerSettings(
            bindAddresses: config.bindAddresses,
            port: config.port,
            passwords: Dictionary(config.passwords.map { ($0.password, $0.permissions) }, uniquingKeysWith: { $1 }),
            defaultPermissions: config.defaultPermissions,
            localPermissions: config.localPermissions,
            connectionTimeout: config.connectionTimeout,
            maxConnections: config.maxConnections,
            maxCommandListSize: config.maxCommandListSize,
            maxOutputBufferSize: config.maxOutputBufferSize,
            musicDirectory: config.musicDirectory)
    }
}

enum Version {
    static let string = "0.1.0"
}
