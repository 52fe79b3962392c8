import NimbusSupport

/// One `cloud { … }` block: an account mounted into the library as a top-level folder.
public struct CloudAccountConfiguration: Sendable, Equatable {
    public static let types = ["webdav", "yandex-disk", "dropbox", "google-drive", "onedrive"]
    /// Keys that would put a secret into the config body; secrets live in files or the
    /// environment (`password_file`, `token_file`, `NIMBUS_TOKEN_<NAME>`).
    /// (`client_secret` is the app's, registered by the user, which installed-app flows send
    /// along; it is allowed here as providers document it.)
    static let secretKeys: Set<String> = ["password", "token", "access_token", "refresh_token"]
    static let knownKeys: Set<String> = [
        "name", "type", "root", "url", "user", "password_file", "token_file", "client_id", "client_secret", "api_url",
        "content_url", "token_url", "device_code_url", "authorize_url", "mount", "pin",
    ]
    /// Types whose sign-in produces an OAuth token file.
    public static let oauthTypes: Set<String> = ["yandex-disk", "dropbox", "google-drive", "onedrive"]

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

    /// Reads a block; nil (with a warning) when it cannot describe an account.
    static func read(_ block: ConfigBlock, warnings: inout [String]) -> CloudAccountConfiguration? {
        guard let name = block.value("name"), !name.isEmpty, !name.contains("/") else {
            warnings.append("\(block.location): cloud account without a valid \"name\"; ignored")
            return nil
        }
        guard let type = block.value("type"), types.contains(type) else {
            warnings.append("\(block.location): cloud account \"\(name)\": type must be one of \(types.joined(separator: ", ")); ignored")
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
        if type == "webdav", settings["url"] == nil {
            warnings.append("\(block.location): webdav account \"\(name)\" needs a \"url\"; ignored")
            return nil
        }
        var root = settings["root"] ?? "/"
        while root.hasSuffix("/") && root.count > 1 { root.removeLast() }
        return CloudAccountConfiguration(
            name: name, type: type, root: root, settings: settings,
            mountAtStart: !["no", "false", "0"].contains(settings["mount"] ?? "yes"),
            pins: block.params.filter { $0.name == "pin" }.map(\.value))
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
            return account.withDefaultSecrets(in: secretsDirectory)
        }
    }

    /// Where `nimbus authorize` keeps tokens and passwords of accounts that name no file.
    public var secretsDirectory: String {
        (stateFile.lastIndex(of: "/").map { String(stateFile[..<$0]) } ?? ".") + "/accounts"
    }
}

extension CloudAccountConfiguration {
    /// An OAuth account without `token_file` keeps its token at `DIR/NAME.token`, a WebDAV
    /// account with a `user` and no `password_file` its password at `DIR/NAME.password`: the
    /// files `nimbus authorize` writes.
    func withDefaultSecrets(in directory: String) -> CloudAccountConfiguration {
        var account = self
        if Self.oauthTypes.contains(type), settings["token_file"] == nil {
            account.settings["token_file"] = directory + "/" + name + ".token"
        }
        if type == "webdav", settings["user"] != nil, settings["password_file"] == nil {
            account.settings["password_file"] = directory + "/" + name + ".password"
        }
        return account
    }
}
