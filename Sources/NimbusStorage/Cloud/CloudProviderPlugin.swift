import NimbusInput

/// What a provider plugin is given to build one account's API client: the `cloud { }` block,
/// the shared connection pool, the account's health record and, for an OAuth provider, its
/// tokens (kept for the life of the daemon, so a new sign-in is taken up by the same object).
public struct ProviderContext: Sendable {
    public let account: CloudAccounts.Account
    let pool: HTTPSessionPool
    let health: AccountHealth
    let tokens: OAuthTokens?

    /// A setting of the block, or the provider's documented default (tests point `api_url`,
    /// `content_url` and `token_url` at the emulators).
    func setting(_ key: String, default fallback: String) -> String { account.settings[key] ?? fallback }

    /// The account's OAuth tokens, from its `token_file`; mounting fails until a sign-in
    /// wrote one.
    func signedInTokens() throws(StorageError) -> OAuthTokens {
        guard let tokens, account.settings["token_file"] != nil else { throw StorageError(.io, "\(account.name): no token_file") }
        tokens.reloadIfChanged()
        guard tokens.hasToken else { throw StorageError(.io, "\(account.name): sign-in needed — run: nimbus authorize \(account.name)") }
        return tokens
    }

    /// Authorized JSON calls with the account's tokens.
    func api() throws(StorageError) -> JSONAPI {
        JSONAPI(account: account.name, tokens: try signedInTokens(), pool: pool, health: health)
    }
}

/// One kind of cloud account: the `type` of a `cloud { }` block, how a person signs in to it,
/// who is signed in, and how to reach it. Adding a provider is one file in `Providers/` and
/// one line in `CloudProviderRegistry.standard`: nothing else switches on the type.
public protocol CloudProviderPlugin: Sendable {
    var type: String { get }
    /// How a person signs in, with the provider's documented endpoints (each overridable in
    /// the block: `device_code_url`, `authorize_url`, `token_url`).
    func signIn(_ settings: [String: String]) -> SignInMethod
    /// How the access token is sent: `Authorization: SCHEME TOKEN`.
    var tokenScheme: String { get }
    /// Who is signed in, asked of the account's API; nil when the settings say it.
    func identity(_ settings: [String: String]) -> IdentityQuery?
    /// The user the settings name (a WebDAV user), shown before anything is asked.
    func configuredUser(_ settings: [String: String]) -> String?
    /// Settings a block must have (a WebDAV `url`).
    var requiredSettings: [String] { get }
    /// What a person supplies when adding the account (`accounttypes` lists it as `needs`):
    /// the required settings and what the sign-in needs (the app's `client_id`).
    var needs: [String] { get }
    /// Optional settings worth a field in a form (`accounttypes` lists them as `accepts`).
    var accepts: [String] { get }
    /// Checks a password with the server before it is saved (a wrong one is refused at once,
    /// not at the next update). Blocks: one request.
    func verify(password: String, _ settings: [String: String]) throws(StorageError)
    /// The setting naming the file a sign-in writes and the account reads, and the default
    /// file's suffix; nil when the account needs no sign-in (a WebDAV share without a user).
    func secretFile(_ settings: [String: String]) -> (setting: String, suffix: String)?
    func make(_ context: ProviderContext) throws(StorageError) -> any CloudProvider
    /// The address schemes its `url` may have (`http`, `https`; `smb` for an SMB share).
    var schemes: [String] { get }
    /// Files beside the secret that the daemon places (an SFTP account's `known_hosts_file`).
    var stateFiles: [(setting: String, suffix: String)] { get }
    /// The server's host key, for `signin` to show before a password is sent (SFTP); nil
    /// where there is none. Blocks: one connection, no login.
    func hostKey(_ settings: [String: String]) throws(StorageError) -> (fingerprint: String, known: Bool)?
}

extension CloudProviderPlugin {
    public var tokenScheme: String { "Bearer" }
    public func identity(_ settings: [String: String]) -> IdentityQuery? { nil }
    public func configuredUser(_ settings: [String: String]) -> String? { nil }
    public var requiredSettings: [String] { [] }
    public var needs: [String] { requiredSettings }
    public var accepts: [String] { ["root"] }
    public var schemes: [String] { ["http", "https"] }
    public var stateFiles: [(setting: String, suffix: String)] { [] }
    public func hostKey(_ settings: [String: String]) throws(StorageError) -> (fingerprint: String, known: Bool)? { nil }
    public func verify(password: String, _ settings: [String: String]) throws(StorageError) {}
    /// An OAuth provider's token file.
    public func secretFile(_ settings: [String: String]) -> (setting: String, suffix: String)? {
        signIn(settings).tokenURL != nil ? ("token_file", "token") : nil
    }
}

/// The providers Nimbus knows, handed to `CloudAccounts`.
public struct CloudProviderRegistry: Sendable {
    public let plugins: [any CloudProviderPlugin]

    public init(_ plugins: [any CloudProviderPlugin]) { self.plugins = plugins }

    public static let standard = CloudProviderRegistry([
        WebDAVProviderPlugin(), NextcloudProviderPlugin(), YandexWebDAVProviderPlugin(), YandexDiskProviderPlugin(),
        DropboxProviderPlugin(), GoogleDriveProviderPlugin(), OneDriveProviderPlugin(), SMBProviderPlugin(), SFTPProviderPlugin(), FTPProviderPlugin(), NFSProviderPlugin(),
    ])

    public func plugin(forType type: String) -> (any CloudProviderPlugin)? { plugins.first { $0.type == type } }
}
