import NimbusConfig

/// A configured account as its provider takes it: the config reads `cloud { }` blocks, the
/// provider plugin says whether it can use one and which secret file its sign-in writes.
extension CloudProviderRegistry {
    /// The blocks the providers can use, with the secret file of each that needs one set to
    /// `DIRECTORY/NAME.token` or `DIRECTORY/NAME.password` when the block names none (the
    /// files `nimbus authorize` writes); an unknown type or a block missing what its provider
    /// needs is left out with a warning.
    public func accounts(
        _ blocks: [CloudAccountConfiguration], secretsDirectory: String, warnings: inout [String]
    ) -> [CloudAccountConfiguration] {
        blocks.compactMap { block -> CloudAccountConfiguration? in
            guard let plugin = plugin(forType: block.type) else {
                let types = plugins.map(\.type).joined(separator: ", ")
                warnings.append("\(block.location): cloud account \"\(block.name)\": type must be one of \(types); ignored")
                return nil
            }
            if let missing = plugin.requiredSettings.first(where: { block.settings[$0] == nil }) {
                warnings.append("\(block.location): \(block.type) account \"\(block.name)\" needs a \"\(missing)\"; ignored")
                return nil
            }
            var account = block
            if let secret = plugin.secretFile(block.settings), block.settings[secret.setting] == nil {
                account.settings[secret.setting] = secretsDirectory + "/" + block.name + "." + secret.suffix
            }
            for file in plugin.stateFiles where block.settings[file.setting] == nil {
                account.settings[file.setting] = secretsDirectory + "/" + block.name + "." + file.suffix
            }
            return account
        }
    }
}

extension CloudAccounts.Account {
    /// The account a configured block describes.
    public init(_ block: CloudAccountConfiguration) {
        self.init(name: block.name, type: block.type, root: block.root, settings: block.settings)
    }
}

/// One provider as `accounttypes` shows it, so a client can draw the form without knowing
/// the providers.
public struct AccountType: Sendable, Equatable {
    public let type: String
    /// `none`, `password`, `browser`, `device` or `code`.
    public let signIn: String
    public let needs: [String]
    /// Optional settings worth a field in a form (`user` of a WebDAV share, `root`).
    public let accepts: [String]
}

/// Why `addaccount` refused an account.
public struct AccountSettingsError: Error, Equatable {
    public let message: String
    init(_ message: String) { self.message = message }
}

extension CloudProviderRegistry {
    public var types: [AccountType] {
        plugins.map { plugin in
            let sample = Dictionary(uniqueKeysWithValues: (plugin.needs + plugin.accepts).map { ($0, "x") })
            return AccountType(type: plugin.type, signIn: plugin.signIn(sample).name, needs: plugin.needs, accepts: plugin.accepts)
        }
    }

    /// Settings a client may give `addaccount`: the config's, except the files a sign-in
    /// writes (the daemon places those itself: a client must not choose a path it writes to)
    /// and the config-only `pin`.
    public static let runtimeKeys: Set<String> = CloudAccountConfiguration.knownKeys.subtracting([
        "name", "type", "pin", "token_file", "password_file", "login_file", "known_hosts_file",
    ])

    /// A limit on what one account may carry, far above any real one.
    static let maximumSettings = 32

    /// The account `addaccount NAME TYPE KEY VALUE…` describes, its secret file placed in
    /// `secretsDirectory`; refused with the reason when the type, a key or a value is wrong.
    public func runtimeAccount(
        name: String, type: String, settings: [(key: String, value: String)], secretsDirectory: String
    ) throws(AccountSettingsError) -> CloudAccounts.Account {
        guard let plugin = plugin(forType: type) else {
            throw AccountSettingsError("unknown account type \"\(type)\" (one of: \(plugins.map(\.type).joined(separator: ", ")))")
        }
        guard settings.count <= Self.maximumSettings else { throw AccountSettingsError("too many settings") }
        var values: [String: String] = [:]
        for (key, value) in settings {
            guard Self.runtimeKeys.contains(key) else {
                throw AccountSettingsError("unknown setting \"\(key.prefix(64))\" (one of: \(Self.runtimeKeys.sorted().joined(separator: ", ")))")
            }
            guard values[key] == nil else { throw AccountSettingsError("\"\(key)\" is given twice") }
            guard !value.isEmpty, value.utf8.count <= 2048, !value.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F })
            else { throw AccountSettingsError("\"\(key)\" must be one line of 1 to 2048 bytes") }
            if key.hasSuffix("url") {
                let lowered = value.lowercased()
                let schemes = key == "url" ? plugin.schemes : ["http", "https"]
                guard schemes.contains(where: { lowered.hasPrefix($0 + "://") }) else {
                    throw AccountSettingsError("\"\(key)\" must be an \(schemes.map { $0 + "://" }.joined(separator: " or ")) address")
                }
                if key == "url", ShareURL(value)?.password != nil {
                    throw AccountSettingsError("the password goes to signinpassword, not into \"url\"")
                }
            }
            values[key] = value
        }
        if let missing = plugin.needs.first(where: { values[$0] == nil }) {
            throw AccountSettingsError("a \(type) account needs \"\(missing)\"")
        }
        var root = values["root"] ?? "/"
        if !root.hasPrefix("/") { root = "/" + root }
        while root.hasSuffix("/") && root.count > 1 { root.removeLast() }
        if let secret = plugin.secretFile(values) { values[secret.setting] = secretsDirectory + "/" + name + "." + secret.suffix }
        for file in plugin.stateFiles { values[file.setting] = secretsDirectory + "/" + name + "." + file.suffix }
        return CloudAccounts.Account(name: name, type: type, root: root, settings: values)
    }
}
