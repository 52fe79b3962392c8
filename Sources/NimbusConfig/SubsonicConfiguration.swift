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
/// }
/// ```
public struct SubsonicConfiguration: Sendable, Equatable {
    public var enabled = true
    /// Nil: only on the web page's port.
    public var port: Int?
    public var bindAddresses: [String]?

    public init() {}

    static func read(_ block: ConfigBlock, warnings: inout [String]) throws(ConfigError) -> SubsonicConfiguration {
        var subsonic = SubsonicConfiguration()
        for param in block.params {
            switch param.name {
            case "enabled": subsonic.enabled = try BlockValues.flag(param)
            case "port": subsonic.port = try BlockValues.port(param)
            case "bind_to_address": subsonic.bindAddresses = (subsonic.bindAddresses ?? []) + [try BlockValues.networkAddress(param)]
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

    public init(name: String, password: String, permissions: Permission = [.read, .add]) {
        self.name = name
        self.password = password
        self.permissions = permissions
    }

    static func read(_ block: ConfigBlock, warnings: inout [String], readFile: (String) -> String?) throws(ConfigError)
        -> SubsonicUserConfiguration?
    {
        for param in block.params where !["name", "password", "password_file", "permissions"].contains(param.name) {
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
        return SubsonicUserConfiguration(name: name, password: password, permissions: permissions)
    }
}
