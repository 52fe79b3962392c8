import NimbusCore
import NimbusLibrary
import NimbusModel
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
    /// Stored playlists for lsinfo's root listing (name, UNIX modification time).
    public var storedPlaylists: @CoreActor () -> [(name: String, modified: Int64)] = { [] }
    public var urlSchemes: [String] = []
    /// Called by `kill`; the daemon shuts down cleanly.
    public var onKill: @CoreActor () -> Void = {}

    public init(settings: ServerSettings, logger: Logger, idle: IdleBus) {
        self.settings = settings
        self.logger = logger
        self.idle = idle
        self.channels = ChannelHub(idle: idle)
    }

    public var uptimeSeconds: UInt64 { (MonotonicClock.now() - startTime) / 1_000_000_000 }
}
