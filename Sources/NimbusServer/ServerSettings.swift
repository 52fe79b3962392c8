import NimbusModel

/// What the protocol layer needs from the configuration.
public struct ServerSettings: Sendable {
    public var bindAddresses: [String]
    /// `$XDG_RUNTIME_DIR/mpd/socket` for a user's daemon without `bind_to_address`, as MPD.
    public var runtimeSocket: String?
    public var port: Int
    public var passwords: [String: Permission]
    public var defaultPermissions: Permission
    public var localPermissions: Permission
    /// Seconds a non-idle client may stay silent.
    public var connectionTimeout: Int
    public var maxConnections: Int
    /// Bytes of queued command-list text before the connection is dropped.
    public var maxCommandListSize: Int
    /// Bytes of unsent output on top of MPD's fixed 16 KiB socket buffer.
    public var maxOutputBufferSize: Int
    /// Shown by `config` to local clients.
    public var musicDirectory: String?
    /// Tags the server reports (`metadata_to_use`): all but Comment, as in MPD.
    public var enabledTags: TagMask
    /// `max_playlist_length`: songs in the queue and in a stored playlist.
    public var maxPlaylistLength: Int

    public init(
        bindAddresses: [String] = ["127.0.0.1"], runtimeSocket: String? = nil, port: Int = 6600, passwords: [String: Permission] = [:],
        defaultPermissions: Permission = .all, localPermissions: Permission = .all, connectionTimeout: Int = 60,
        maxConnections: Int = 100, maxCommandListSize: Int = 2048 * 1024, maxOutputBufferSize: Int = 8192 * 1024,
        musicDirectory: String? = nil, enabledTags: TagMask = .defaultEnabled, maxPlaylistLength: Int = 16384
    ) {
        self.bindAddresses = bindAddresses
        self.runtimeSocket = runtimeSocket
        self.port = port
        self.passwords = passwords
        self.defaultPermissions = defaultPermissions
        self.localPermissions = localPermissions
        self.connectionTimeout = connectionTimeout
        self.maxConnections = maxConnections
        self.maxCommandListSize = maxCommandListSize
        self.maxOutputBufferSize = maxOutputBufferSize
        self.musicDirectory = musicDirectory
        self.enabledTags = enabledTags
        self.maxPlaylistLength = maxPlaylistLength
    }

    /// MPD sizes its socket buffer as 16 KiB plus `max_output_buffer_size`; a response that does
    /// not fit closes the connection.
    var outputLimit: Int { 16384 + maxOutputBufferSize }

    /// The largest `binarylimit` MPD accepts: one chunk plus headers must fit the output buffer.
    var maximumBinaryLimit: Int { outputLimit - 4096 }
}
