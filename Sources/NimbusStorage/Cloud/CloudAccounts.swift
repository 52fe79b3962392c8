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

    public init(accounts: [Account], cache: RangeCache, stateDirectory: String, logger: Logger) {
        self.accounts = Dictionary(accounts.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        self.cache = cache
        self.stateDirectory = stateDirectory
        self.logger = logger
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
        guard let account = accounts[name] else { throw StorageError(.notFound, "no cloud account named \"\(name)\"") }
        let provider = try makeProvider(account)
        let storage = CloudStorage(account: name, provider: provider, cache: cache, stateDirectory: stateDirectory, logger: logger)
        return storages.withLock { storages in
            if let existing = storages[name] { return existing }
            storages[name] = storage
            return storage
        }
    }

    /// A WebDAV share mounted by URL (`mount music https://host/dav/`), without credentials.
    public func webDAV(url: String, name: String) -> CloudStorage {
        let provider = WebDAVProvider(account: name, baseURL: url, credentials: nil, pool: pool)
        return CloudStorage(account: name, provider: provider, cache: cache, stateDirectory: stateDirectory, logger: logger)
    }

    private func makeProvider(_ account: Account) throws(StorageError) -> any CloudProvider {
        switch account.type {
        case "webdav":
            guard let url = account.settings["url"] else { throw StorageError(.io, "\(account.name): no url") }
            var credentials: HTTPRequest.Authentication?
            if let user = account.settings["user"] {
                let password = try Secrets.read(account.settings["password_file"], account: account.name, kind: "password")
                credentials = .password(user: user, password: password)
            }
            var base = url.hasSuffix("/") ? url : url + "/"
            if account.root != "/" { base += HTTPHelpers.encode(String(account.root.drop { $0 == "/" })) + "/" }
            return WebDAVProvider(account: account.name, baseURL: base, credentials: credentials, pool: pool)
        case "yandex-disk":
            let base = account.settings["api_url"] ?? "https://cloud-api.yandex.net"
            let tokens = try tokens(account, url: account.settings["token_url"] ?? "https://oauth.yandex.ru/token", scheme: "OAuth")
            return YandexDiskProvider(account: account.name, root: account.root, base: base, tokens: tokens, pool: pool)
        case "dropbox":
            let base = account.settings["api_url"] ?? "https://api.dropboxapi.com"
            let content = account.settings["content_url"] ?? "https://content.dropboxapi.com"
            let tokens = try tokens(account, url: account.settings["token_url"] ?? "https://api.dropboxapi.com/oauth2/token")
            return DropboxProvider(account: account.name, root: account.root, base: base, content: content, tokens: tokens, pool: pool)
        case "google-drive":
            let base = account.settings["api_url"] ?? "https://www.googleapis.com"
            let tokens = try tokens(account, url: account.settings["token_url"] ?? "https://oauth2.googleapis.com/token")
            return GoogleDriveProvider(account: account.name, root: account.root, base: base, tokens: tokens, pool: pool)
        case "onedrive":
            let base = account.settings["api_url"] ?? "https://graph.microsoft.com/v1.0"
            let tokens = try tokens(
                account, url: account.settings["token_url"] ?? "https://login.microsoftonline.com/common/oauth2/v2.0/token")
            return OneDriveProvider(account: account.name, root: account.root, base: base, tokens: tokens, pool: pool)
        default:
            throw StorageError(.io, "\(account.name): cloud type \"\(account.type)\" is not supported")
        }
    }

    private func tokens(_ account: Account, url: String, scheme: String = "Bearer") throws(StorageError) -> OAuthTokens {
        try OAuthTokens(
            account: account.name, file: account.settings["token_file"], tokenURL: url, scheme: scheme,
            clientID: account.settings["client_id"], pool: pool)
    }
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
