import NimbusCore
import NimbusDecoder
import NimbusLibrary
import NimbusModel
import NimbusStickers
import NimbusSupport

/// A decoder plugin as `decoders` lists it.
public struct DecoderDescription: Sendable, Equatable {
    public let name: String
    public let suffixes: [String]
    public let mimeTypes: [String]

    public init(name: String, suffixes: [String], mimeTypes: [String]) {
        self.name = name
        self.suffixes = suffixes
        self.mimeTypes = mimeTypes
    }
}

/// Everything command handlers may reach: settings, the idle bus, the core services. Handed
/// to each handler call; there are no globals.
@CoreActor
public final class ServerContext {
    public let settings: ServerSettings
    public let logger: Logger
    public let idle: IdleBus
    public let channels: ChannelHub
    public let startTime = MonotonicClock.now()
    public var decoders: [DecoderDescription] = []
    /// The song database; nil when the daemon has no music directory.
    public var library: MusicLibrary?
    /// The sticker database; nil without a usable `sticker_file` (`sticker` is then hidden).
    public var stickers: StickerStore?
    /// Stored playlists; nil without a playlist_directory (the commands are then hidden).
    public var playlists: PlaylistStore?
    /// The default partition first; `partition` switches a client between them.
    public private(set) var partitions: [Partition]
    /// Opens a queued song for the player (storage, cloud account or URL).
    public var songOpener: @CoreActor (Song, ReplayGainSettings) -> @Sendable () throws -> any AudioDecoder = { song, _ in
        { throw DecoderError("No storage for \(song.uri)") }
    }
    /// `replaygain_preamp`, `replaygain_missing_preamp`, `replaygain_limit` from the config;
    /// each partition adds its `replay_gain_mode`.
    public var replayGain = ReplayGainSettings()
    /// Cloud and WebDAV mounts; nil when the daemon has none to offer.
    public var mounts: (any MountControl)?
    /// Starts fetching what the player will need of a song soon (cloud songs: head and tail).
    public var songPrefetch: @CoreActor (Song) -> Void = { _ in }
    /// Why a cloud account cannot be reached now (shown as `error:` in status).
    public var storageProblem: @CoreActor () -> String? = { nil }
    /// Makes a song for a URI that is not in the library (`add http://…`); nil refuses it.
    public var remoteSong: @CoreActor (String) -> Song? = { _ in nil }
    /// Scans a file outside the music directory named by a local client; nil if unreadable.
    public var localFileSong: @CoreActor (String) -> Song? = { _ in nil }
    public var urlSchemes: [String] = []
    /// A partition's queue, options, position, volume or outputs changed (the state file).
    public var onStateChanged: @CoreActor () -> Void = {}
    /// Called by `kill`; the daemon shuts down cleanly.
    public var onKill: @CoreActor () -> Void = {}

    public init(settings: ServerSettings, logger: Logger, idle: IdleBus) {
        self.settings = settings
        self.logger = logger
        self.idle = idle
        self.channels = ChannelHub(idle: idle)
        let partition = Partition(name: "default", maxQueueLength: settings.maxPlaylistLength)
        partitions = [partition]
        attach(partition)
    }

    public var defaultPartition: Partition { partitions[0] }

    public func partition(named name: String) -> Partition? { partitions.first { $0.name == name } }

    /// Adds a partition created by `newpartition`.
    public func addPartition(_ partition: Partition) {
        partitions.append(partition)
        attach(partition)
        onStateChanged()
    }

    public func removePartition(_ partition: Partition) {
        partitions.removeAll { $0 === partition }
        onStateChanged()
    }

    private func attach(_ partition: Partition) {
        let name = partition.name
        partition.onEvents = { [unowned self] events in self.idle.emit(events, partition: name) }
        partition.opener = { [unowned self] song, mode, random in
            var settings = self.replayGain
            settings.mode = mode
            settings.random = random
            return self.songOpener(song, settings)
        }
        partition.prefetch = { [unowned self] song in self.songPrefetch(song) }
        partition.onStateChanged = { [unowned self] in self.onStateChanged() }
    }

    public var uptimeSeconds: UInt64 { (MonotonicClock.now() - startTime) / 1_000_000_000 }
}
