import NimbusSupport

/// One `cloud { … }` block: an account mounted into the library as a top-level folder. The
/// config reads the block; whether its type exists, what its provider needs and which file
/// its sign-in writes are the provider plugins' business (NimbusStorage's
/// `CloudProviderRegistry.accounts`).
public struct CloudAccountConfiguration: Sendable, Equatable {
    /// Keys that would put a secret into the config body; secrets live in files or the
    /// environment (`password_file`, `token_file`, `NIMBUS_TOKEN_<NAME>`).
    /// (`client_secret` is the app's, registered by the user, which installed-app flows send
    /// along; it is allowed here as providers document it.)
    static let secretKeys: Set<String> = ["password", "token", "access_token", "refresh_token"]
    public static let knownKeys: Set<String> = [
        "name", "type", "root", "url", "user", "password_file", "token_file", "client_id", "client_secret", "api_url",
        "content_url", "token_url", "device_code_url", "authorize_url", "mount", "pin", "login_file",
        "workgroup", "fingerprint", "key_file", "known_hosts_file",
    ]
    public var name: String
    public var type: String
    /// Remote folder the account's root maps to.
    public var root: String
    /// Everything else in the block (url, user, password_file, token_file, endpoints …).
    public var settings: [String: String]
    /// Mounted at start under its name (`mount "no"`: only through the `mount` command).
    public var mountAtStart: Bool
    /// Folders (relative to the account root) kept entirely on disk for offline use.
    public var pins: [String]
    /// Where the block is, for warnings (`mpd.conf:12`).
    public var location: String

    /// Reads a block; nil (with a warning) when it cannot describe an account.
    static func read(_ block: ConfigBlock, warnings: inout [String]) -> CloudAccountConfiguration? {
        guard let name = block.value("name"), !name.isEmpty, !name.contains("/") else {
            warnings.append("\(block.location): cloud account without a valid \"name\"; ignored")
            return nil
        }
        guard let type = block.value("type"), !type.isEmpty else {
            warnings.append("\(block.location): cloud account \"\(name)\" without a \"type\"; ignored")
            return nil
        }
        var settings: [String: String] = [:]
        for param in block.params where param.name != "pin" {
            if secretKeys.contains(param.name) {
                warnings.append(
                    "\(param.location): \"\(param.name)\" would put a secret into the config file; use password_file or token_file")
                continue
            }
            if !knownKeys.contains(param.name) { warnings.append("\(param.location): unknown cloud setting '\(param.name)'; ignored") }
            settings[param.name] = param.value
        }
        var root = settings["root"] ?? "/"
        while root.hasSuffix("/") && root.count > 1 { root.removeLast() }
        return CloudAccountConfiguration(
            name: name, type: type, root: root, settings: settings,
            mountAtStart: !["no", "false", "0"].contains(settings["mount"] ?? "yes"),
            pins: block.params.filter { $0.name == "pin" }.map(\.value), location: "\(block.location)")
    }
}

extension DaemonConfiguration {
    /// The accounts of the `cloud` blocks, with warnings for blocks that cannot be used.
    public func cloud(warnings: inout [String]) -> [CloudAccountConfiguration] {
        var seen = Set<String>()
        return cloudAccounts.compactMap { block in
            guard let account = CloudAccountConfiguration.read(block, warnings: &warnings) else { return nil }
            guard seen.insert(account.name).inserted else {
                warnings.append("\(block.location): a second cloud account named \"\(account.name)\"; ignored")
                return nil
            }
            return account
        }
    }

    /// Where `nimbus authorize` keeps tokens and passwords of accounts that name no file.
    public var secretsDirectory: String {
        (stateFile.lastIndex(of: "/").map { String(stateFile[..<$0]) } ?? ".") + "/accounts"
    }
}
