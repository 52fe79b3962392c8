import NimbusModel
import Foundation
import NimbusInput
import NimbusSupport
import Synchronization

/// A cloud account as a `Storage`: folders and files from the provider's listings, bytes
/// through the range cache. What the listings said about each file (id, version, size) is
/// kept in a small file next to the cache, so cached songs open without the network.
public final class CloudStorage: Storage {
    public let account: String
    let provider: any CloudProvider
    public let cache: RangeCache
    private let files: Mutex<[String: RemoteItem]>
    /// Folders whose listing is known (from `list`, or a known file inside): a name missing
    /// there is missing, without asking the server (albumart tries eight cover names).
    private let listedFolders: Mutex<Set<String>>
    private let mapPath: String
    private let logger: Logger
    public let health: AccountHealth

    public init(
        account: String, provider: any CloudProvider, cache: RangeCache, stateDirectory: String, logger: Logger, health: AccountHealth
    ) {
        self.account = account
        self.health = health
        self.provider = provider
        self.cache = cache
        self.logger = logger
        mapPath = stateDirectory + "/" + account + ".files"
        var known: [String: RemoteItem] = [:]
        if let bytes = (try? AtomicFile.read(mapPath)) ?? nil, let items = try? JSONDecoder().decode([RemoteItem].self, from: Data(bytes)) {
            for item in items { known[item.path] = item }
        }
        files = Mutex(known)
        listedFolders = Mutex(Set(known.keys.map(StoragePath.parent)))
    }

    public func list(_ directory: String, skipped: (String) -> Void) throws(StorageError) -> [StorageEntry] {
        let items: [RemoteItem]
        do {
            items = try provider.list(directory, skipped: skipped)
            health.noteListed()
        } catch {
            if error.kind != .notFound { health.noteUnreachable(error.message) }
            logger.error(error.message)
            throw error
        }
        files.withLock { files in
            for item in items { files[item.path] = item }
        }
        listedFolders.withLock { _ = $0.insert(directory) }
        return items.map(\.entry)
    }

    public func stat(_ path: String) throws(StorageError) -> StorageEntry {
        if path.isEmpty { return StorageEntry(name: "", kind: .directory, size: 0, modified: 0, identity: nil) }
        if let known = files.withLock({ $0[path] }) { return known.entry }
        let item = try provider.item(path)
        files.withLock { $0[path] = item }
        return item.entry
    }

    public func open(_ path: String) throws(InputError) -> any NimbusInput.InputStream { try open(path, purpose: .playing) }

    public func open(_ path: String, purpose: FetchPurpose) throws(InputError) -> any NimbusInput.InputStream {
        let item = try describe(path)
        return try cache.open(
            key: key(item), length: item.size, source: source(for: item), purpose: purpose, uri: account + "/" + path,
            mimeType: item.mimeType)
    }

    /// The head and tail of a file the player will need soon (decoders read both at open).
    public func prefetch(_ path: String) {
        guard let item = try? describe(path), item.size > 0 else { return }
        let head: Int64 = 512 << 10
        let tail: Int64 = 64 << 10
        cache.prefetch(
            key: key(item), length: item.size, source: source(for: item),
            ranges: [0..<min(head, item.size), max(0, item.size - tail)..<item.size])
    }

    /// The provider's source for a file, telling the account's health what its reads found:
    /// a read that could not reach the server makes it `unreachable` in `listaccounts`, the
    /// next answer clears it.
    private func source(for item: RemoteItem) -> any RemoteSource {
        HealthReportingSource(inner: provider.source(for: item), health: health)
    }

    public func refresh(_ path: String) -> Bool {
        // A song that failed because the server is out of reach did not change: listing it
        // again would only wait for another timeout (15 s against a stopped share).
        guard !health.isUnreachable, let known = files.withLock({ $0[path] }), let item = try? provider.item(path) else { return false }
        files.withLock { $0[path] = item }
        let changed = item.version != known.version || item.size != known.size || item.modified != known.modified
        if changed { logger.notice("\(account)/\(path) changed on the server; playing the new version") }
        return changed
    }

    /// Blocks only for a file no listing described (the database's songs all were).
    public func offlineFile(_ path: String) -> OfflineFile? {
        guard let item = try? describe(path), item.size > 0 else { return nil }
        return OfflineFile(account: account, key: key(item), size: item.size, health: health, cache: cache, source: source(for: item))
    }

    public func localPath(_ path: String) -> String? { nil }

    /// Bytes of this account's known files in the cache, and of those, pinned ones.
    public var cacheUsage: (cached: Int64, pinned: Int64) {
        cache.usage(of: files.withLock { $0.values.filter { !$0.isDirectory }.map(key) })
    }

    /// Drops every cached byte of the account's files, pinned or not (the account is removed).
    public func forgetCache() {
        for item in files.withLock({ Array($0.values) }) where !item.isDirectory { cache.forget(key: key(item)) }
    }

    /// The same for an account that cannot be mounted now (signed out): its files are known
    /// from the listing it saved.
    static func forgetCache(account: String, stateDirectory: String, cache: RangeCache) {
        guard let bytes = (try? AtomicFile.read(stateDirectory + "/" + account + ".files")) ?? nil,
            let items = try? JSONDecoder().decode([RemoteItem].self, from: Data(bytes))
        else { return }
        for item in items where !item.isDirectory { cache.forget(key: CacheKey(account: account, fileID: item.id, version: item.version)) }
    }

    /// The saved password or login changed (a sign-in or a sign-out): the provider reads it again.
    public func reloadCredentials() { provider.reloadCredentials() }

    /// Persists what the listings said, so cached songs open offline after a restart.
    public func flush() {
        let items = files.withLock { Array($0.values) }.filter { !$0.isDirectory }
        guard let data = try? JSONEncoder().encode(items) else { return }
        try? AtomicFile.write(Array(data), to: mapPath)
    }

    private func key(_ item: RemoteItem) -> CacheKey {
        CacheKey(account: account, fileID: item.id, version: item.version)
    }

    private func describe(_ path: String) throws(InputError) -> RemoteItem {
        if let known = files.withLock({ $0[path] }) { return known }
        if listedFolders.withLock({ $0.contains(StoragePath.parent(path)) }) {
            throw InputError("\(account): no such file \"\(path)\"")
        }
        do {
            let item = try provider.item(path)
            files.withLock { $0[path] = item }
            return item
        } catch {
            throw InputError(error.message)
        }
    }
}

/// A provider's source that reports to the account's health whether the server answered.
private struct HealthReportingSource: RemoteSource {
    let inner: any RemoteSource
    let health: AccountHealth

    func fetch(_ range: Range<Int64>, purpose: FetchPurpose, into sink: (UnsafeRawBufferPointer) -> Bool) throws(RemoteError) {
        do {
            try inner.fetch(range, purpose: purpose, into: sink)
            health.noteReachable()
        } catch {
            if error.unreachable { health.noteUnreachable(error.message) }
            throw error
        }
    }
}
