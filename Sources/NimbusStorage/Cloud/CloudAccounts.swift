import Foundation
import NimbusInput
import NimbusSupport
import Synchronization

/// The configured cloud accounts: each turned into a `CloudStorage` on demand (for mounting
/// at start or by the `mount` command), sharing one range cache and one connection pool.
public final class CloudAccounts: Sendable {
    public struct Account: Sendable {
        public let name: String
        public let type: String
        public let root: String
        public let settings: [String: String]

        public init(name: String, type: String, root: String, settings: [String: String]) {
            self.name = name
            self.type = type
            self.root = root
            self.settings = settings
        }
    }

    public let cache: RangeCache
    let pool = HTTPSessionPool(capacity: 16)
    private let accounts: [String: Account]
    private let stateDirectory: String
    private let logger: Logger
    private let storages = Mutex<[String: CloudStorage]>([:])
    private let providers: CloudProviderRegistry
    /// One per configured account, from the start: an account that cannot be mounted has a
    /// state to show too.
    private let healths: [String: AccountHealth]
    /// The OAuth tokens of the accounts that have them, from the start too (a sign-in
    /// writes the token file later).
    private let credentials: [String: OAuthTokens]

    public init(
        accounts: [Account], cache: RangeCache, stateDirectory: String, logger: Logger,
        providers: CloudProviderRegistry = .standard
    ) {
        self.providers = providers
        self.accounts = Dictionary(accounts.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        self.cache = cache
        self.stateDirectory = stateDirectory
        self.logger = logger
        var healths: [String: AccountHealth] = [:]
        var credentials: [String: OAuthTokens] = [:]
        for account in self.accounts.values {
            let plugin = providers.plugin(forType: account.type), settings = account.settings
            var tokens: OAuthTokens?
            if let plugin, let tokenURL = plugin.signIn(settings).tokenURL, let file = settings["token_file"] {
                tokens = OAuthTokens(
                    account: account.name, file: file, tokenURL: tokenURL, scheme: plugin.tokenScheme, clientID: settings["client_id"],
                    pool: pool)
            }
            var identify: (@Sendable () -> String?)?
            if let tokens, let query = plugin?.identity(settings) {
                identify = { (try? tokens.accessToken()).flatMap(query.name(access:)) }
            }
            healths[account.name] = AccountHealth(
                path: stateDirectory + "/" + account.name + ".health", user: plugin?.configuredUser(settings), credentials: tokens,
                identify: identify)
            credentials[account.name] = tokens
        }
        self.healths = healths
        self.credentials = credentials
        try? FileManager.default.createDirectory(atPath: stateDirectory, withIntermediateDirectories: true)
    }

    public var names: [String] { accounts.keys.sorted() }
    public var all: [CloudStorage] { storages.withLock { Array($0.values) } }

    /// Why some account cannot be reached, if one cannot; asked by every `status`, so it
    /// looks without copying the accounts.
    public var firstFailure: String? {
        storages.withLock { storages in
            for storage in storages.values { if let failure = storage.failure { return failure } }
            return nil
        }
    }

    /// The storage of a configured account (one per account, created once).
    public func storage(_ name: String) throws(StorageError) -> CloudStorage {
        if let existing = storages.withLock({ $0[name] }) { return existing }
        guard let account = accounts[name], let health = healths[name] else {
            throw StorageError(.notFound, "no cloud account named \"\(name)\"")
        }
        let provider: any CloudProvider
        do {
            provider = try makeProvider(account, health: health)
        } catch {
            health.noteNotMounted(error.message)
            throw error
        }
        health.noteNotMounted(nil)
        let storage = CloudStorage(
            account: name, provider: provider, cache: cache, stateDirectory: stateDirectory, logger: logger, health: health)
        let kept = storages.withLock { storages in
            if let existing = storages[name] { return existing }
            storages[name] = storage
            return storage
        }
        health.identifyInBackground()
        return kept
    }

    /// Every configured account's state and what the cache holds of it, for `listaccounts`.
    public var summaries: [AccountSummary] {
        names.compactMap { name -> AccountSummary? in
            guard let account = accounts[name], let health = healths[name] else { return nil }
            let usage = storages.withLock { $0[name] }?.cacheUsage ?? (cached: 0, pinned: 0)
            return AccountSummary(name: name, type: account.type, report: health.checkedReport(), cachedBytes: usage.cached, pinnedBytes: usage.pinned)
        }
    }

    /// Watches the accounts' token files, so a sign-in (a file written) or a sign-out (a
    /// file removed) is acted on at once: `onChange` gets the account's name (on the watch's
    /// own thread). Nil without OAuth accounts.
    public func watchCredentials(_ onChange: @escaping @Sendable (String) -> Void) -> FileWatch? {
        let files = accounts.values.compactMap { account in credentials[account.name] != nil ? account.settings["token_file"] : nil }
        guard !files.isEmpty else { return nil }
        let owners = Dictionary(
            accounts.values.compactMap { account in account.settings["token_file"].map { ($0, account.name) } }, uniquingKeysWith: { a, _ in a })
        return FileWatch(files: files, name: "credentials") { path in
            if let account = owners[path] { onChange(account) }
        }
    }

    /// A WebDAV share mounted by URL (`mount music https://host/dav/`), without credentials.
    public func webDAV(url: String, name: String) -> CloudStorage {
        let provider = WebDAVProvider(account: name, baseURL: url, credentials: nil, pool: pool)
        return CloudStorage(
            account: name, provider: provider, cache: cache, stateDirectory: stateDirectory, logger: logger,
            health: AccountHealth(path: nil))
    }

    private func makeProvider(_ account: Account, health: AccountHealth) throws(StorageError) -> any CloudProvider {
        guard let plugin = providers.plugin(forType: account.type) else {
            throw StorageError(.io, "\(account.name): cloud type \"\(account.type)\" is not supported")
        }
        return try plugin.make(ProviderContext(account: account, pool: pool, health: health, tokens: credentials[account.name]))
    }
}

/// One line of `listaccounts`.
public struct AccountSummary: Sendable {
    public let name: String
    public let type: String
    public let report: AccountHealth.Report
    /// Bytes of the account's files in the range cache, and of those, pinned ones.
    public let cachedBytes: Int64
    public let pinnedBytes: Int64
}

/// Secrets come from files (first line) or the environment, never from the config body.
enum Secrets {
    static func read(_ path: String?, account: String, kind: String) throws(StorageError) -> String {
        let variable = "NIMBUS_\(kind.uppercased())_\(account.uppercased().map { $0.isLetter || $0.isNumber ? $0 : "_" }.map(String.init).joined())"
        if let value = ProcessInfo.processInfo.environment[variable], !value.isEmpty { return value }
        guard let path else { throw StorageError(.io, "\(account): no \(kind) (set \(kind)_file or \(variable))") }
        guard let bytes = (try? AtomicFile.read(path)) ?? nil else { throw StorageError(.io, "\(account): cannot read \(path)") }
        let text = String(decoding: bytes, as: UTF8.self)
        return String(text.split(separator: "\n", omittingEmptySubsequences: false).first ?? "").trimmedSpaces
    }
}
