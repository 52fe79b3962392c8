import Foundation
import Glibc
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
        public var settings: [String: String]

        public init(name: String, type: String, root: String, settings: [String: String]) {
            self.name = name
            self.type = type
            self.root = root
            self.settings = settings
        }
    }

    public let cache: RangeCache
    let pool = HTTPSessionPool(capacity: 16)
    let stateDirectory: String
    let logger: Logger
    private let storages = Mutex<[String: CloudStorage]>([:])
    public let providers: CloudProviderRegistry

    /// One account: its settings, its health record and, for an OAuth provider, its tokens
    /// (from the start: an account that cannot be mounted has a state to show too, and a
    /// sign-in writes the token file later).
    private struct Entry: Sendable {
        var account: Account
        var health: AccountHealth
        var tokens: OAuthTokens?
        /// Added by a client at run time (`addaccount`), not by the config file.
        var addedAtRunTime: Bool
    }

    private let entries = Mutex<[String: Entry]>([:])
    /// Where each account's identity is asked once it answers.
    private let work: BlockingWork

    public init(
        accounts: [Account], cache: RangeCache, stateDirectory: String, logger: Logger,
        providers: CloudProviderRegistry = .standard, work: BlockingWork = BlockingWork(name: "accounts", limit: 2)
    ) {
        self.work = work
        self.providers = providers
        self.cache = cache
        self.stateDirectory = stateDirectory
        self.logger = logger
        for account in accounts { add(account, atRunTime: false) }
        try? FileManager.default.createDirectory(atPath: stateDirectory, withIntermediateDirectories: true)
    }

    /// Adds an account (the config's at start, a client's later); false when the name is taken.
    @discardableResult
    public func add(_ account: Account, atRunTime: Bool) -> Bool {
        guard entries.withLock({ $0[account.name] == nil }) else { return false }
        let plugin = providers.plugin(forType: account.type), settings = account.settings
        var tokens: OAuthTokens?
        if let plugin, let tokenURL = plugin.signIn(settings).tokenURL, let file = settings["token_file"] {
            tokens = OAuthTokens(
                account: account.name, file: file, tokenURL: tokenURL, scheme: plugin.tokenScheme, clientID: settings["client_id"], pool: pool)
        }
        var identify: (@Sendable () -> String?)?
        if let tokens, let query = plugin?.identity(settings) {
            identify = { (try? tokens.accessToken()).flatMap(query.name(access:)) }
        }
        var secretMissing: (@Sendable () -> String?)?
        if tokens == nil, let secret = plugin?.secretFile(settings), let file = settings[secret.setting] {
            let name = account.name, variable = Secrets.variable(kind: "password", account: name)
            secretMissing = {
                guard !FileManager.default.fileExists(atPath: file), ProcessInfo.processInfo.environment[variable] == nil else { return nil }
                return "sign-in needed — run: nimbus authorize \(name)"
            }
        }
        var settingsUser: (@Sendable () -> String?)?
        if let plugin { settingsUser = { plugin.configuredUser(settings) } }
        let health = AccountHealth(
            path: stateDirectory + "/" + account.name + ".health", user: plugin?.configuredUser(settings), credentials: tokens,
            identify: identify, secretMissing: secretMissing, settingsUser: settingsUser, work: work)
        return entries.withLock { entries in
            guard entries[account.name] == nil else { return false }
            entries[account.name] = Entry(account: account, health: health, tokens: tokens, addedAtRunTime: atRunTime)
            return true
        }
    }

    /// Forgets an account: its storage object (the caller unmounts it first), its cached
    /// bytes, pinned or not, its listing and its health file.
    public func remove(_ name: String) {
        entries.withLock { _ = $0.removeValue(forKey: name) }
        if let storage = storages.withLock({ $0.removeValue(forKey: name) }) {
            storage.forgetCache()
        } else {
            CloudStorage.forgetCache(account: name, stateDirectory: stateDirectory, cache: cache)
        }
        for suffix in [".health", ".files"] { unlink(stateDirectory + "/" + name + suffix) }
    }

    public var names: [String] { entries.withLock { $0.keys.sorted() } }
    public func account(_ name: String) -> Account? { entries.withLock { $0[name]?.account } }
    public func isAddedAtRunTime(_ name: String) -> Bool { entries.withLock { $0[name]?.addedAtRunTime ?? false } }
    /// The accounts clients added, in name order (what the runtime account file keeps).
    public var addedAtRunTime: [Account] { entries.withLock { $0.values.filter(\.addedAtRunTime).map(\.account) }.sorted { $0.name < $1.name } }
    public var all: [CloudStorage] { storages.withLock { Array($0.values) } }
    /// The storage made for the account so far, without making one.
    public func existingStorage(_ name: String) -> CloudStorage? { storages.withLock { $0[name] } }
    public func health(_ name: String) -> AccountHealth? { entries.withLock { $0[name]?.health } }

    /// What a sign-in of the account needs: its method, settings and the file it saves to;
    /// nil for an account that needs none (or that does not exist).
    public func signInRequest(_ name: String, redirect: String?) -> SignInRequest? {
        guard let account = account(name), let plugin = providers.plugin(forType: account.type) else { return nil }
        let method = plugin.signIn(account.settings)
        guard method != .none, let secret = plugin.secretFile(account.settings).flatMap({ account.settings[$0.setting] }) else { return nil }
        return SignInRequest(account: name, method: method, settings: account.settings, secretFile: secret, plugin: plugin, redirect: redirect)
    }

    /// The storage of an account (one per account, created once).
    public func storage(_ name: String) throws(StorageError) -> CloudStorage {
        if let existing = storages.withLock({ $0[name] }) { return existing }
        guard let entry = entries.withLock({ $0[name] }) else {
            throw StorageError(.notFound, "no cloud account named \"\(name)\"")
        }
        let provider: any CloudProvider
        do {
            provider = try makeProvider(entry)
        } catch {
            entry.health.noteNotMounted(error.message)
            throw error
        }
        entry.health.noteNotMounted(nil)
        let storage = CloudStorage(
            account: name, provider: provider, cache: cache, stateDirectory: stateDirectory, logger: logger, health: entry.health)
        let kept = storages.withLock { storages in
            if let existing = storages[name] { return existing }
            storages[name] = storage
            return storage
        }
        entry.health.identifyInBackground()
        return kept
    }

    /// Every account's state and what the cache holds of it, for `listaccounts`.
    public var summaries: [AccountSummary] {
        names.compactMap { name -> AccountSummary? in
            guard let entry = entries.withLock({ $0[name] }) else { return nil }
            let usage = storages.withLock { $0[name] }?.cacheUsage ?? (cached: 0, pinned: 0)
            return AccountSummary(
                name: name, type: entry.account.type, report: entry.health.checkedReport(), cachedBytes: usage.cached,
                pinnedBytes: usage.pinned, addedAtRunTime: entry.addedAtRunTime, refreshRefused: entry.health.refreshRefused)
        }
    }

    /// Watches the accounts' token files, so a sign-in (a file written) or a sign-out (a
    /// file removed) is acted on at once: `onChange` gets the account's name (on the watch's
    /// own thread). Nil without OAuth accounts.
    public func watchCredentials(_ onChange: @escaping @Sendable (String) -> Void) -> FileWatch? {
        let oauth = entries.withLock { $0.values.filter { $0.tokens != nil }.map(\.account) }
        let files = oauth.compactMap { $0.settings["token_file"] }
        guard !files.isEmpty else { return nil }
        let owners = Dictionary(oauth.compactMap { account in account.settings["token_file"].map { ($0, account.name) } }, uniquingKeysWith: { a, _ in a })
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

    private func makeProvider(_ entry: Entry) throws(StorageError) -> any CloudProvider {
        let account = entry.account
        guard let plugin = providers.plugin(forType: account.type) else {
            throw StorageError(.io, "\(account.name): cloud type \"\(account.type)\" is not supported")
        }
        return try plugin.make(ProviderContext(account: account, pool: pool, health: entry.health, tokens: entry.tokens))
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
    /// Added by a client (`addaccount`), not by the config file.
    public let addedAtRunTime: Bool
    /// The provider refused the refresh token of a sign-in that once worked.
    public let refreshRefused: Bool
}

/// Secrets come from files (first line) or the environment, never from the config body.
enum Secrets {
    /// `NIMBUS_PASSWORD_NAME`, `NIMBUS_TOKEN_NAME`: the environment variable that may hold it.
    static func variable(kind: String, account: String) -> String {
        "NIMBUS_\(kind.uppercased())_\(account.uppercased().map { $0.isLetter || $0.isNumber ? $0 : "_" }.map(String.init).joined())"
    }

    static func read(_ path: String?, account: String, kind: String) throws(StorageError) -> String {
        let variable = variable(kind: kind, account: account)
        if let value = ProcessInfo.processInfo.environment[variable], !value.isEmpty { return value }
        guard let path else { throw StorageError(.io, "\(account): no \(kind) (set \(kind)_file or \(variable))") }
        guard let bytes = (try? AtomicFile.read(path)) ?? nil else { throw StorageError(.io, "\(account): its \(kind) file cannot be read — run: nimbus authorize \(account)") }
        let text = String(decoding: bytes, as: UTF8.self)
        return String(text.split(separator: "\n", omittingEmptySubsequences: false).first ?? "").trimmedSpaces
    }
}
