import Foundation
import Glibc
import NimbusModel
import NimbusSupport

/// Turns raw params into typed settings, one handler per key, with MPD's error messages.
struct ConfigReader {
    let file: ConfigFile
    let home: String
    private(set) var warnings: [String] = []

    init(file: ConfigFile, home: String) {
        self.file = file
        self.home = home
    }

    /// MPD 0.23 options Nimbus accepts without acting on them (yet); they warn once so a user
    /// knows the line has no effect, but an existing mpd.conf still starts.
    static let ignoredMPDOptions: Set<String> = [
        "group", "host_permissions",
        "audio_buffer_size", "buffer_before_play", "http_proxy_host", "http_proxy_port", "http_proxy_user",
        "http_proxy_password", "filesystem_charset", "fs_charset", "id3v1_encoding",
        "gapless_mp3_playback", "mixramp_analyzer", "despotify_user",
        "despotify_password", "despotify_high_bitrate", "log_timestamp",
    ]
    static let ignoredMPDBlocks: Set<String> = [
        "decoder", "input", "input_cache", "playlist_plugin", "neighbors",
    ]

    mutating func apply(to config: inout DaemonConfiguration) throws(ConfigError) {
        for param in file.params {
            try apply(param, to: &config)
        }
        for block in file.blocks {
            switch block.name {
            case "audio_output": config.audioOutputs.append(block)
            case "filter": config.filterBlocks.append(block)
            case "cloud": config.cloudAccounts.append(block)
            case "web": config.web = try WebConfiguration.read(block, warnings: &warnings)
            case "resampler": config.resampler = try Self.resampler(block, warnings: &warnings)
            case "subsonic": config.subsonic = try SubsonicConfiguration.read(block, warnings: &warnings)
            case "subsonic_user":
                let home = home
                let user = try SubsonicUserConfiguration.read(block, warnings: &warnings) { path in
                    try? String(contentsOfFile: PathExpansion.expand(path, home: home), encoding: .utf8)
                }
                guard let user else { continue }
                if config.subsonicUsers.contains(where: { $0.name == user.name }) {
                    warn(block.location, "subsonic_user \"\(user.name)\" appears twice; the first is kept")
                } else {
                    config.subsonicUsers.append(user)
                }
            case "database": try applyDatabase(block, to: &config)
            case let name where Self.ignoredMPDBlocks.contains(name):
                warn(block.location, "'\(name)' blocks are not supported by Nimbus; ignored")
            default:
                warn(block.location, "unknown block '\(block.name)'; ignored")
            }
        }
        let binds = file.all("bind_to_address")
        for bind in binds where !Self.isPlausibleAddress(bind.value) {
            throw ConfigError("bind_to_address: \"\(bind.value)\" is not an IP address, host name or socket path", at: bind.location)
        }
        if !binds.isEmpty {
            config.bindAddresses = binds.map { $0.value.hasPrefix("~") ? path($0) : $0.value }
            config.bindAddressConfigured = true
        }
        try applyPermissions(to: &config)
    }

    private mutating func apply(_ param: ConfigParam, to config: inout DaemonConfiguration) throws(ConfigError) {
        switch param.name {
        case "music_directory": config.musicDirectory = path(param)
        case "playlist_directory": config.playlistDirectory = path(param)
        case "db_file": config.databaseFile = try absolutePath(param)
        case "state_file": config.stateFile = try absolutePath(param)
        case "sticker_file": config.stickerFile = try absolutePath(param)
        case "cache_directory": config.cacheDirectory = try absolutePath(param)
        case "pid_file": config.pidFile = try absolutePath(param)
        case "mixer_type":
            let kind = param.value == "null" ? "none" : param.value
            guard ["hardware", "software", "none"].contains(kind) else {
                throw ConfigError("Unrecognized mixer type: \"\(param.value)\"", at: param.location)
            }
            config.mixerType = kind
        case "volume_normalization": config.volumeNormalization = try bool(param)
        case "loudness_analysis":
            config.analysisOnlyWhenIdle = param.value == "idle"
            config.loudnessAnalysis = config.analysisOnlyWhenIdle ? true : try bool(param)
        case "replaygain_source":
            guard ["tags", "analysis"].contains(param.value) else {
                throw ConfigError("replaygain_source: \"\(param.value)\" is neither \"tags\" nor \"analysis\"", at: param.location)
            }
            config.replayGainSource = param.value
        case "cache_size": config.cacheSize = try size(param)
        case "offline_transfers": config.offlineTransfers = try number(param, range: 1...16)
        case "cache_revalidate": config.cacheRevalidate = try number(param, range: 0...31_536_000)
        case "log_file":
            config.logFile = param.value == "syslog" || param.value == "/dev/stderr" ? nil : try absolutePath(param)
        case "samplerate_converter" where !file.blocks.contains(where: { $0.name == "resampler" }):
            config.resampler = try Self.samplerateConverter(param, warnings: &warnings)
        case "samplerate_converter": break
        case "log_level":
            guard let level = LogLevel(configName: param.value) else {
                throw ConfigError("unknown log level \"\(param.value)\"", at: param.location)
            }
            config.logLevel = level
        case "bind_to_address": break  // all occurrences at once, below
        case "port": config.port = try number(param, range: 1...65535)
        case "user": config.user = param.value
        case "password", "default_permissions", "local_permissions": break  // after all params
        case "connection_timeout": config.connectionTimeout = try number(param, range: 1...Int(Int32.max))
        case "max_connections": config.maxConnections = try number(param, range: 1...Int(Int32.max))
        case "max_command_list_size": config.maxCommandListSize = try number(param, range: 1...(1 << 30)) * 1024
        case "max_output_buffer_size": config.maxOutputBufferSize = try number(param, range: 1...(1 << 30)) * 1024
        case "max_playlist_length": config.maxPlaylistLength = try number(param, range: 1...Int(Int32.max))
        case "metadata_to_use":
            let (mask, unknown) = TagMask.parsing(metadataToUse: param.value)
            for name in unknown { warn(param.location, "metadata_to_use: unknown tag '\(name)'; ignored") }
            config.enabledTags = mask
        case "auto_update": config.autoUpdate = try bool(param)
        case "auto_update_depth": config.autoUpdateDepth = try number(param, range: 0...Int(Int32.max))
        case "restore_paused": config.restorePaused = try bool(param)
        case "sleep_fade": config.sleepFade = try number(param, range: 0...600)
        case "resume_min_length": config.resumeMinimumLength = try number(param, range: 0...Int(Int32.max))
        case "podcast_refresh_interval": config.podcastRefreshInterval = try number(param, range: 60...Int(Int32.max))
        case "state_file_interval": config.stateFileInterval = try number(param, range: 1...Int(Int32.max))
        case "save_absolute_paths_in_playlists": config.absolutePlaylistPaths = try bool(param)
        case "follow_outside_symlinks": config.followOutsideSymlinks = try bool(param)
        case "follow_inside_symlinks": config.followInsideSymlinks = try bool(param)
        case "audio_output_format":
            guard case let (rate, sample, channels)? = AudioFormat.parse(param.value) else {
                throw ConfigError("audio_output_format: not an audio format (\"44100:16:2\", \"*\" for a field kept): \(param.value)", at: param.location)
            }
            config.audioOutputFormat = AudioFormatPattern(sampleRate: rate, sample: sample, channels: channels)
        case "zeroconf_enabled": config.zeroconfEnabled = try bool(param)
        case "zeroconf_name": config.zeroconfName = param.value
        case "replaygain":
            guard ["off", "track", "album", "auto"].contains(param.value) else {
                throw ConfigError("Invalid replaygain parameter \"\(param.value)\"", at: param.location)
            }
            config.replayGainMode = param.value
        case "replaygain_preamp": config.replayGainPreamp = try decibels(param)
        case "replaygain_missing_preamp": config.replayGainMissingPreamp = try decibels(param)
        case "replaygain_limit": config.replayGainLimit = try bool(param)
        case let name where Self.ignoredMPDOptions.contains(name):
            warn(param.location, "'\(name)' is not supported by Nimbus; ignored")
        default:
            warn(param.location, "unknown setting '\(param.name)'; ignored")
        }
    }

    private func applyPermissions(to config: inout DaemonConfiguration) throws(ConfigError) {
        let passwords = file.all("password")
        if !passwords.isEmpty { config.defaultPermissions = [] }
        for param in passwords {
            guard let at = param.value.firstIndex(of: "@") else {
                throw ConfigError("\"@\" not found in password string", at: param.location)
            }
            let permissions = try permissions(String(param.value[param.value.index(after: at)...]), param)
            config.passwords.append(PasswordEntry(password: String(param.value[..<at]), permissions: permissions))
        }
        if let param = file.param("default_permissions") {
            config.defaultPermissions = try permissions(param.value, param)
        }
        config.localPermissions = config.defaultPermissions
        if let param = file.param("local_permissions") {
            config.localPermissions = try permissions(param.value, param)
        }
    }

    private func permissions(_ text: String, _ param: ConfigParam) throws(ConfigError) -> Permission {
        do {
            return try Permission(parsing: text)
        } catch {
            throw ConfigError(error.description, at: param.location)
        }
    }

    private mutating func warn(_ location: ConfigLocation, _ message: String) {
        warnings.append("\(location): \(message)")
    }

    private func path(_ param: ConfigParam) -> String {
        PathExpansion.expand(param.value, home: home)
    }

    /// MPD's `database { plugin "simple" path … }`: where the database lives (as `db_file`,
    /// which a block overrides, as in MPD where the two cannot be combined). Nimbus's file is
    /// already compact, so `compress` and `cache_directory` change nothing; another plugin
    /// (`proxy`, `upnp`) is not offered and the local database is used, with a warning.
    private mutating func applyDatabase(_ block: ConfigBlock, to config: inout DaemonConfiguration) throws(ConfigError) {
        let plugin = block.params.last { $0.name == "plugin" }?.value ?? "simple"
        guard plugin == "simple" else {
            warn(block.location, "database plugin \"\(plugin)\" is not supported by Nimbus; the local music directory's database is used")
            return
        }
        if file.params.contains(where: { $0.name == "db_file" }) {
            warn(block.location, "both 'db_file' and a 'database' block; the block's path is used")
        }
        for param in block.params {
            switch param.name {
            case "plugin": break
            case "path": config.databaseFile = try absolutePath(param)
            case "compress", "cache_directory":
                warn(param.location, "database setting '\(param.name)' changes nothing in Nimbus; ignored")
            case "hide_playlist_targets":
                if param.value != "yes" {
                    warn(param.location, "hide_playlist_targets: CUE sheets' files are always hidden behind their tracks (MPD's default); ignored")
                }
            default: warn(param.location, "unknown database setting '\(param.name)'; ignored")
            }
        }
    }

    private func absolutePath(_ param: ConfigParam) throws(ConfigError) -> String {
        let expanded = path(param)
        guard expanded.hasPrefix("/") else {
            throw ConfigError("\(param.name): not an absolute path: \(param.value)", at: param.location)
        }
        return expanded
    }

    /// `2G`, `512M`, `100k` or plain bytes.
    private func size(_ param: ConfigParam) throws(ConfigError) -> Int64 {
        var text = param.value.trimmingCharacters(in: .whitespaces).uppercased()
        if text.hasSuffix("B") { text.removeLast() }
        var factor: Int64 = 1
        for (suffix, value) in [("K", Int64(1) << 10), ("M", Int64(1) << 20), ("G", Int64(1) << 30), ("T", Int64(1) << 40)]
        where text.hasSuffix(suffix) {
            factor = value
            text.removeLast()
        }
        guard let number = Int64(text.trimmingCharacters(in: .whitespaces)), number > 0 else {
            throw ConfigError("\(param.name): Failed to parse size \"\(param.value)\"", at: param.location)
        }
        return number * factor
    }

    private func number(_ param: ConfigParam, range: ClosedRange<Int>) throws(ConfigError) -> Int {
        guard let value = Int(param.value) else {
            throw ConfigError("\(param.name): Failed to parse number", at: param.location)
        }
        guard value >= range.lowerBound else {
            throw ConfigError("\(param.name): Value must be positive", at: param.location)
        }
        guard value <= range.upperBound else {
            throw ConfigError("\(param.name): Value too large", at: param.location)
        }
        return value
    }

    /// MPD's range for the preamps: -15 to 15 dB.
    private func decibels(_ param: ConfigParam) throws(ConfigError) -> Float {
        guard let value = Float(param.value), value >= -15, value <= 15 else {
            throw ConfigError("Number must be between -15 and 15", at: param.location)
        }
        return value
    }

    private func bool(_ param: ConfigParam) throws(ConfigError) -> Bool {
        switch param.value {
        case "yes", "true", "1": return true
        case "no", "false", "0": return false
        default:
            throw ConfigError("\(param.name): Not a valid boolean (\"yes\" or \"no\"): \(param.value)", at: param.location)
        }
    }

    /// Catches what can be caught before binding: a dotted quad with a part above 255, a
    /// bracketed IPv6 literal that does not parse, a name with characters no host has. (A
    /// well-formed name that does not resolve is found at bind time.)
    static func isPlausibleAddress(_ value: String) -> Bool {
        if value == "any" || value.hasPrefix("/") || value.hasPrefix("@") || value.hasPrefix("~") { return !value.isEmpty }
        if value.hasPrefix("[") {
            guard value.hasSuffix("]") else { return false }
            var address = in6_addr()
            return inet_pton(AF_INET6, String(value.dropFirst().dropLast()), &address) == 1
        }
        if value.contains(":") {
            var address = in6_addr()
            return inet_pton(AF_INET6, value, &address) == 1
        }
        if value.allSatisfy({ $0.isNumber || $0 == "." }) {
            var address = in_addr()
            return inet_pton(AF_INET, value, &address) == 1
        }
        return !value.isEmpty && value.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == ".") }
    }
}
