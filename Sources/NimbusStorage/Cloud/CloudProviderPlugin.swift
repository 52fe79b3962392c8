import NimbusInput

/// What a provider plugin is given to build one account's API client: the `cloud { }` block
/// and the shared connection pool.
public struct ProviderContext: Sendable {
    public let account: CloudAccounts.Account
    let pool: HTTPSessionPool
    let health: AccountHealth

    /// A setting of the block, or the provider's documented default (tests point `api_url`,
    /// `content_url` and `token_url` at the emulators).
    func setting(_ key: String, default fallback: String) -> String { account.settings[key] ?? fallback }

    /// The account's OAuth tokens from `token_file`, refreshed at `token_url` (or `defaultURL`).
    /// The health record learns who signed in from the provider's user-info call.
    func tokens(defaultURL: String, scheme: String = "Bearer") throws(StorageError) -> OAuthTokens {
        let tokens = try OAuthTokens(
            account: account.name, file: account.settings["token_file"], tokenURL: setting("token_url", default: defaultURL),
            scheme: scheme, clientID: account.settings["client_id"], pool: pool, health: health)
        let (type, settings) = (account.type, account.settings)
        health.setIdentify {
            guard let header = try? tokens.header() else { return nil }
            return SignInIdentity.name(type: type, settings: settings, access: String(header.value.dropFirst(scheme.count + 1)))
        }
        health.setProbe { tokens.reloadIfChanged() }
        return tokens
    }
}

/// One kind of cloud account: the `type` of a `cloud { }` block and how to reach it. Adding a
/// provider is one file in `Providers/` and one line in `CloudProviderRegistry.standard`.
public protocol CloudProviderPlugin: Sendable {
    var type: String { get }
    func make(_ context: ProviderContext) throws(StorageError) -> any CloudProvider
}

/// The providers Nimbus knows, handed to `CloudAccounts`.
public struct CloudProviderRegistry: Sendable {
    public let plugins: [any CloudProviderPlugin]

    public init(_ plugins: [any CloudProviderPlugin]) { self.plugins = plugins }

    public static let standard = CloudProviderRegistry([
        WebDAVProviderPlugin(), YandexDiskProviderPlugin(), DropboxProviderPlugin(), GoogleDriveProviderPlugin(),
        OneDriveProviderPlugin(),
    ])

    public func plugin(forType type: String) -> (any CloudProviderPlugin)? { plugins.first { $0.type == type } }
}
