import NimbusAnalysis
import NimbusCore
import NimbusLibrary
import NimbusModel
import NimbusOffline
import NimbusSources
import NimbusStickers
import NimbusSupport

/// The collaborators the assembly hands the server, each for one concern. Optional ones are
/// absent when the configuration has no place for them (no playlist directory, a sticker
/// database that cannot be opened); their commands are then hidden, as in MPD.
@CoreActor
public struct ServerServices {
    public var partitions: PartitionSet
    public var songs: SongSources
    public var library: MusicLibrary?
    public var playlists: PlaylistStore?
    public var mounts: (any MountControl)?
    /// Cloud accounts added, signed in and removed by clients; nil without cloud support.
    public var accounts: (any AccountControl)?
    /// Offline pins and their downloads; nil without cloud storage to pin.
    public var offline: OfflineDownloads?
    /// Podcast subscriptions; nil when the daemon offers none.
    public var podcasts: (any PodcastControl)?
    /// Equalizer presets and each output's sound chain; nil without a state directory.
    public var sound: SoundLibrary?
    /// The loudness analysis pass; nil when `loudness_analysis "no"`.
    public var analysis: AnalysisPass?
    /// `kill`: the daemon shuts down cleanly.
    public var shutdown: @CoreActor () -> Void
    /// The blocking half of commands (`albumart`, `readpicture` of a cloud song) runs here.
    public var commandWork = BlockingWork(name: "blocking", limit: 4)

    public init(
        partitions: PartitionSet, songs: SongSources, library: MusicLibrary? = nil, playlists: PlaylistStore? = nil,
        mounts: (any MountControl)? = nil, shutdown: @escaping @CoreActor () -> Void = {}
    ) {
        self.partitions = partitions
        self.songs = songs
        self.library = library
        self.playlists = playlists
        self.mounts = mounts
        self.shutdown = shutdown
    }
}

/// What command handlers reach, handed to each call (there are no globals): the settings,
/// the idle bus and channels of this server, and the services it was built with.
@CoreActor
public final class ServerContext {
    public let settings: ServerSettings
    public let logger: Logger
    public let idle: IdleBus
    public let channels: ChannelHub
    /// Where commands' blocking halves run (`Executors.commands`).
    let commandWork: BlockingWork
    public let startTime = MonotonicClock.now()
    public let partitions: PartitionSet
    public let songs: SongSources
    /// The song database; nil when the daemon has no music directory.
    public let library: MusicLibrary?
    /// Stored playlists; nil without a playlist_directory (the commands are then hidden).
    public let playlists: PlaylistStore?
    /// The sticker database; nil until opened, or without a usable `sticker_file` (`sticker`
    /// is then hidden).
    public private(set) var stickers: StickerStore?
    /// Cloud and WebDAV mounts; nil when the daemon has none to offer.
    public let mounts: (any MountControl)?
    public let accounts: (any AccountControl)?
    public let offline: OfflineDownloads?
    public let podcasts: (any PodcastControl)?
    public let sound: SoundLibrary?
    public let analysis: AnalysisPass?
    /// The phone API's users and keys; nil while the API is off (its commands are then hidden).
    public var apiUsers: (any APIUserControl)?
    /// Keeps the pins' song lists current as the database and the playlists change.
    private(set) var pinSync: PinSync?
    /// The only strong reference to what `pinSync` resolves pins against.
    private var pinSources: PinSync.Sources?
    let shutdown: @CoreActor () -> Void
    /// The command table of the server this context serves (`commands`, `notcommands`).
    public internal(set) var table = CommandTable.standard
    /// Whether some connection controls `partition` (`delpartition` refuses then); the
    /// server that owns the connections answers.
    var partitionInUse: @CoreActor (Partition) -> Bool = { _ in false }

    func isInUse(_ partition: Partition) -> Bool { partitionInUse(partition) }

    public init(settings: ServerSettings, logger: Logger, idle: IdleBus, services: ServerServices) {
        self.settings = settings
        self.logger = logger
        self.idle = idle
        channels = ChannelHub(idle: idle)
        partitions = services.partitions
        songs = services.songs
        library = services.library
        playlists = services.playlists
        mounts = services.mounts
        accounts = services.accounts
        offline = services.offline
        podcasts = services.podcasts
        sound = services.sound
        analysis = services.analysis
        shutdown = services.shutdown
        commandWork = services.commandWork
        if let offline = services.offline {
            let sources = PinSync.Sources(songs: songs, library: library, playlists: playlists)
            let sync = PinSync(offline: offline, sources: sources)
            idle.add(sync)
            pinSync = sync
            pinSources = sources
        }
    }

    /// Hands the pins' current songs to the downloads (at start, once the database is there).
    public func syncPins() { pinSync?.sync() }

    /// The sticker database, opened once the daemon runs as its final user.
    public func useStickers(_ store: StickerStore?) {
        stickers = store
    }

    public var uptimeSeconds: UInt64 { (MonotonicClock.now() - startTime) / 1_000_000_000 }
}
