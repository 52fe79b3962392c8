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
