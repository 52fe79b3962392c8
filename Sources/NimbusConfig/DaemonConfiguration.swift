import NimbusModel
import NimbusSupport

/// A `password "secret@read,add"` entry.
public struct PasswordEntry: Equatable, Sendable {
    public let password: String
    public let permissions: Permission

    public init(password: String, permissions: Permission) {
        self.password = password
        self.permissions = permissions
    }
}

/// Everything the daemon reads from its config file, typed and validated, with the safe
/// defaults of DEVELOPERS.md for whatever the file leaves out.
public struct DaemonConfiguration: Sendable {
    public var musicDirectory: String
    public var playlistDirectory: String
    public var databaseFile: String
    public var stateFile: String
    public var stickerFile: String
    public var cacheDirectory: String
    /// Seconds the sleep timer fades the sound out before it pauses (`sleep_fade`).
    public var sleepFade = 10
    /// Songs at least this many seconds long get resume positions (`resume_min_length`; 0: none).
    public var resumeMinimumLength = 600
    /// Seconds between refreshes of every podcast feed (`podcast_refresh_interval`).
    public var podcastRefreshInterval = 3600
    /// Bytes the range cache may keep on disk (`cache_size`).
    public var cacheSize: Int64 = 4 << 30
    /// Seconds after which cached bytes of a cloud file not whole on disk are confirmed with
    /// the server again before they are played (`cache_revalidate`; 0: before every play).
    /// 0 by default: a file replaced on the server seconds after its head was cached would
    /// otherwise be heard first as its old version (and then fail, as nothing may follow it);
    /// the confirming request is the first missing block, which the player needs next anyway.
    public var cacheRevalidate = 0
    /// Offline downloads running at once (`offline_transfers`): three keep a home line busy
    /// over added latency without starving the player's own fetches.
    public var offlineTransfers = 3
    /// nil means standard error.
    public var logFile: String?
    public var logLevel: LogLevel = .notice
    public var bindAddresses: [String]
    /// False when no `bind_to_address` line was read: MPD then adds the user's runtime socket.
    public var bindAddressConfigured = false
    /// `pid_file`: written after start, removed at shutdown, read by `--kill`.
    public var pidFile: String?
    public var port: Int = 6600
    /// `user`: started as root, the daemon becomes this user once its sockets are bound.
    public var user: String?
    public var passwords: [PasswordEntry] = []
    public var defaultPermissions: Permission = .all
    public var localPermissions: Permission = .all
    public var connectionTimeout: Int = 60
    public var maxConnections: Int = 100
    public var maxCommandListSize: Int = 2048 * 1024
    public var maxOutputBufferSize: Int = 8192 * 1024
    public var maxPlaylistLength: Int = 16384
    /// `metadata_to_use`: the tags the server reports (MPD's default: all but Comment).
    public var enabledTags: TagMask = .defaultEnabled
    public var autoUpdate = false
    public var autoUpdateDepth: Int?
    public var restorePaused = false
    /// Seconds between state file refreshes while playing (changes are saved within a second).
    public var stateFileInterval = 120
    /// `save_absolute_paths_in_playlists`: write music files into .m3u by absolute path.
    public var absolutePlaylistPaths = false
    /// Follow symbolic links that lead out of the music directory, and those that stay in it
    /// (both yes, as in MPD).
    public var followOutsideSymlinks = true
    public var followInsideSymlinks = true
    /// MPD's `audio_output_format`: every output gets audio in this format (`*` keeps that
    /// field of the song's), an output's own `format` then applying on top.
    public var audioOutputFormat: AudioFormatPattern?
    /// The initial `replay_gain_mode` (a state file's wins) and how gains are applied.
    public var replayGainMode = "off"
    /// `replaygain_source`: `tags` (measured values fill in for songs without tags) or
    /// `analysis` (measured values win).
    public var replayGainSource = "tags"
    /// `loudness_analysis`: measure every local song's loudness in the background (`yes`),
    /// only while nothing plays and no update runs (`idle`), or not at all (`no`).
    public var loudnessAnalysis = true
    public var analysisOnlyWhenIdle = false
    /// The top-level `mixer_type`: outputs without their own take it (MPD's fallback).
    /// `hardware`, `software` or `none` (MPD's `null` is read as `none`).
    public var mixerType: String?
    /// `volume_normalization`: MPD's slow automatic gain on every output.
    public var volumeNormalization = false
    public var replayGainPreamp: Float = 0
    public var replayGainMissingPreamp: Float = 0
    public var replayGainLimit = true
    public var zeroconfEnabled = true
    public var zeroconfName = "Music Player @ %h"
    public var audioOutputs: [ConfigBlock] = []
    /// MPD's `filter { }` blocks, which outputs name in `filters`.
    public var filterBlocks: [ConfigBlock] = []
    /// `resampler { }` or `samplerate_converter`: libsoxr's quality and threads.
    public var resampler = ResamplerSettings.standard
    public var cloudAccounts: [ConfigBlock] = []
    public var web = WebConfiguration()
    public var subsonic = SubsonicConfiguration()
    /// The `subsonic_user { }` blocks (users added at run time live in the state directory).
    public var subsonicUsers: [SubsonicUserConfiguration] = []
    /// Problems worth a log line that do not stop the daemon (unknown keys, ignored options).
    public var warnings: [String] = []

    /// The configuration used when no file is given: `~/Music`, state under
    /// `~/.local/state/nimbus`, cache under `~/.cache/nimbus`, 127.0.0.1:6600.
    public static func defaults(home: String = PathExpansion.currentHome()) -> DaemonConfiguration {
        let state = home + "/.local/state/nimbus"
        return DaemonConfiguration(
            musicDirectory: home + "/Music",
            playlistDirectory: state + "/playlists",
            databaseFile: state + "/database",
            stateFile: state + "/state",
            stickerFile: state + "/sticker.sql",
            cacheDirectory: home + "/.cache/nimbus",
            logFile: nil,
            bindAddresses: ["127.0.0.1"])
    }

    /// Reads `file` over the defaults. As in MPD a file without `bind_to_address` listens on all
    /// addresses: an existing mpd.conf expects phones on the LAN to reach it.
    public static func from(_ file: ConfigFile, home: String = PathExpansion.currentHome()) throws(ConfigError)
        -> DaemonConfiguration
    {
        var config = defaults(home: home)
        config.bindAddresses = ["any"]
        var reader = ConfigReader(file: file, home: home)
        try reader.apply(to: &config)
        config.warnings = reader.warnings
        return config
    }
}
