import Foundation
import NimbusModel

/// The `subsonic { }` block: the Subsonic / OpenSubsonic API phone apps use, served under
/// `/rest/` on the web page's port, and on a port of its own when one is given (a phone on
/// the LAN or behind a reverse proxy may be given that port alone).
///
/// ```
/// subsonic {
///     enabled         "no"              # no /rest/ at all
///     port            "4533"            # also serve it here (Navidrome's port)
///     bind_to_address "192.168.1.20"    # repeatable; default: the web page's addresses
///     transcode_format  "opus"          # for phones that ask for a bit rate but no format
///     transcode_bitrate "128"           # kbit/s for phones that ask for nothing (default: the original)
///     original_clients  "DSub,Tempo"    # client names (`c=`) that get the original unless they ask
///     jukebox_partition "default"       # the partition the jukebox drives
///     radio_playlist    "radio"         # the stored playlist of internet radio stations
/// }
/// ```
public struct SubsonicConfiguration: Sendable, Equatable {
    public var enabled = true
    /// Nil: only on the web page's port.
    public var port: Int?
    public var bindAddresses: [String]?
    public var transcode = TranscodeSetting()
    public var originalClients: [String] = []
    public var jukeboxPartition = "default"
    public var radioPlaylist = "radio"

    public init() {}

    static func read(_ block: ConfigBlock, warnings: inout [String]) throws(ConfigError) -> SubsonicConfiguration {
        var subsonic = SubsonicConfiguration()
        for param in block.params {
            switch param.name {
            case "enabled": subsonic.enabled = try BlockValues.flag(param)
            case "port": subsonic.port = try BlockValues.port(param)
            case "bind_to_address": subsonic.bindAddresses = (subsonic.bindAddresses ?? []) + [try BlockValues.networkAddress(param)]
            case "transcode_format": subsonic.transcode.format = try TranscodeSetting.format(param)
            case "transcode_bitrate": subsonic.transcode.kbps = try TranscodeSetting.kbps(param)
            case "original_clients":
                subsonic.originalClients = param.value.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
            case "jukebox_partition":
                guard !param.value.isEmpty, param.value.utf8.count <= 64 else { throw ConfigError("jukebox_partition: a partition name", at: param.location) }
                subsonic.jukeboxPartition = param.value
            case "radio_playlist":
                guard !param.value.isEmpty, !param.value.contains("/"), param.value.utf8.count <= 255 else {
                    throw ConfigError("radio_playlist: a stored playlist's name", at: param.location)
                }
                subsonic.radioPlaylist = param.value
            default:
                warnings.append("\(param.location): unknown subsonic setting '\(param.name)'; ignored")
            }
        }
        return subsonic
    }
}

/// One `subsonic_user { }` block: a person who may sign in to the API.
///
/// ```
/// subsonic_user {
///     name          "anna"
///     password      "secret"                   # or password_file "/etc/nimbus/anna" (0600)
///     permissions   "read,add,player,control"  # MPD's names; default "read,add"
/// }
/// ```
/// The token sign-in (`t = md5(password + salt)`) needs the password itself, so it is kept
/// as given — in this file or the one `password_file` names — never as a hash.
public struct SubsonicUserConfiguration: Sendable, Equatable {
    public var name: String
    public var password: String
    public var permissions: Permission
    /// This user's own `transcode_format` / `transcode_bitrate` (over the box's).
    public var transcode = TranscodeSetting()

    public init(name: String, password: String, permissions: Permission = [.read, .add]) {
        self.name = name
        self.password = password
        self.permissions = permissions
    }

    static func read(_ block: ConfigBlock, warnings: inout [String], readFile: (String) -> String?) throws(ConfigError)
        -> SubsonicUserConfiguration?
    {
        let known = ["name", "password", "password_file", "permissions", "transcode_format", "transcode_bitrate"]
        for param in block.params where !known.contains(param.name) {
            warnings.append("\(param.location): unknown subsonic_user setting '\(param.name)'; ignored")
        }
        guard let name = block.value("name"), !name.isEmpty, name.utf8.count <= 128 else {
            warnings.append("\(block.location): subsonic_user without a valid \"name\"; ignored")
            return nil
        }
        var password = block.value("password")
        if let file = block.param("password_file") {
            guard let text = readFile(file.value) else {
                throw ConfigError("password_file: cannot read \"\(file.value)\"", at: file.location)
            }
            password = String(text.prefix { $0 != "\n" && $0 != "\r" })
        }
        guard let password, !password.isEmpty else {
            warnings.append("\(block.location): subsonic_user \"\(name)\" without a password; ignored")
            return nil
        }
        var permissions: Permission = [.read, .add]
        if let param = block.param("permissions") {
            do {
                permissions = try Permission(parsing: param.value)
            } catch {
                throw ConfigError(error.description, at: param.location)
            }
        }
        var user = SubsonicUserConfiguration(name: name, password: password, permissions: permissions)
        if let param = block.param("transcode_format") { user.transcode.format = try TranscodeSetting.format(param) }
        if let param = block.param("transcode_bitrate") { user.transcode.kbps = try TranscodeSetting.kbps(param) }
        return user
    }
}

/// What a phone that asks for no format or bit rate gets: nil fields fall back (user → box
/// → the original file).
public struct TranscodeSetting: Sendable, Equatable {
    /// `opus`, `mp3`, `aac` or `raw` (the original).
    public var format: String?
    /// kbit/s; 0 means the original.
    public var kbps: Int?

    public init(format: String? = nil, kbps: Int? = nil) {
        self.format = format
        self.kbps = kbps
    }

    static func format(_ param: ConfigParam) throws(ConfigError) -> String {
        let value = param.value.lowercased()
        guard ["opus", "mp3", "aac", "raw"].contains(value) else {
            throw ConfigError("\(param.name): \"\(param.value)\" is not opus, mp3, aac or raw", at: param.location)
        }
        return value
    }

    static func kbps(_ param: ConfigParam) throws(ConfigError) -> Int {
        guard let value = Int(param.value), (0...1000).contains(value) else {
            throw ConfigError("\(param.name): \"\(param.value)\" is not a bit rate in kbit/s (0…1000)", at: param.location)
        }
        return value
    }
}
