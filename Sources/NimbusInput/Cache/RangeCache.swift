import Foundation
import Glibc
import NimbusSupport
import Synchronization

/// The on-disk byte-range cache every non-local song is read through: one sparse file per
/// (account, file id, version) with a crash-safe journal of the ranges it holds, fetched in
/// aligned blocks by priority, shared by all readers, kept within a size budget by evicting
/// the least recently used files that nobody is reading or has pinned.
public final class RangeCache: Sendable {
    public let directory: String
    public let budget: Int64
    public let counters = CacheCounters()
    /// The threads that fetch this cache's missing ranges.
    let fetcher = Fetcher()
    private let logger: Logger
    let state: Mutex<State>

    struct State: @unchecked Sendable {
        // Invariant: only touched inside `state.withLock` (entries are Sendable classes with
        // their own locks; the dictionary itself is what this lock guards).
        var live: [CacheKey: CacheEntry] = [:]
        /// Files of entries not open now: name → (bytes on disk, last use).
        var dormant: [String: (bytes: Int64, lastAccess: Date)] = [:]
        /// File names of pinned entries, open or not: never evicted.
        var pinned: Set<String> = []
    }

    /// How many idle entries stay open (descriptors and range sets in memory).
    static let idleEntries = 64

    /// A fetch gave up: the message names the account, for whoever reads the log.
    /// `how`: the requests made and why the fetch stopped trying (the tests read it, rather
    /// than timing the failure on a busy machine).
    func fetchFailed(_ error: InputError, purpose: FetchPurpose, how: String = "") {
        logger.error("\(purpose.name) fetch failed\(how): \(error.message)")
    }

    /// Cached bytes of an incomplete file confirmed with the server longer ago than this
    /// (nanoseconds) are confirmed again before a player takes them (`cache_revalidate`).
    public let revalidateAfter: UInt64
    /// How long a player waits for that confirmation from a server that answers only with
    /// faults before the song fails (one out of reach plays what is cached at once).
    static let confirmationLimit = 15.0

    public init(directory: String, budget: Int64, revalidateAfter: Duration = .seconds(60), logger: Logger) {
        self.revalidateAfter = UInt64(max(0, revalidateAfter.components.seconds)) * 1_000_000_000
            + UInt64(max(0, revalidateAfter.components.attoseconds / 1_000_000_000))
        self.directory = directory
        self.budget = budget
        self.logger = logger
        try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        var dormant: [String: (bytes: Int64, lastAccess: Date)] = [:]
        for name in (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? [] where name.hasSuffix(".data") {
            var info = stat()
            guard stat(directory + "/" + name, &info) == 0 else { continue }
            dormant[String(name.dropLast(5))] = (Int64(info.st_blocks) * 512, Date(timeIntervalSince1970: Double(info.st_mtim.tv_sec)))
        }
        state = Mutex(State(dormant: dormant))
        removePartials()
    }

    /// A stream over one remote file version; bytes come from disk when they are there.
    public func open(
        key: CacheKey, length: Int64, source: any RemoteSource, purpose: FetchPurpose, uri: String, mimeType: String? = nil
    ) throws(InputError) -> CachedInputStream {
        let entry = try entry(key: key, length: length, source: source, lease: true)
        return CachedInputStream(entry: entry, cache: self, purpose: purpose, uri: uri, mimeType: mimeType)
    }

    /// Fetches ranges of a file in the background (the head and tail of the next song).
    public func prefetch(key: CacheKey, length: Int64, source: any RemoteSource, ranges: [Range<Int64>], purpose: FetchPurpose = .prefetch) {
        guard let entry = try? entry(key: key, length: length, source: source, lease: false) else { return }
        entry.prefetch(ranges, purpose: purpose)
    }

    /// Marks files as pinned (never evicted) or not, without fetching anything.
    public func setPinned(_ keys: [CacheKey], _ pinned: Bool) {
        state.withLock { state in
            for key in keys {
                if pinned { state.pinned.insert(key.fileName) } else { state.pinned.remove(key.fileName) }
            }
        }
    }

    /// An offline download: pins the file and fetches what is missing at the pinning priority,
    /// blocking the calling thread (see `CacheEntry.download`).
    public func download(
        key: CacheKey, length: Int64, source: any RemoteSource, progress: (Int64) -> Void, stop: ReadInterrupt
    ) throws(InputError) {
        let entry = try entry(key: key, length: length, source: source, lease: true)
        state.withLock { _ = $0.pinned.insert(key.fileName) }
        defer { release(entry) }
        try entry.download(progress: progress, stop: stop)
    }

    /// Drops a file's bytes and its pin (the partial download of an account that signed out).
    public func discard(key: CacheKey) {
        let entry = state.withLock { state -> CacheEntry? in
            state.pinned.remove(key.fileName)
            if let entry = state.live[key] { return entry }
            state.dormant[key.fileName] = nil
            unlink(directory + "/" + key.fileName + ".data")
            unlink(directory + "/" + key.fileName + ".journal")
            return nil
        }
        entry?.discard()
    }

    /// Removes a file's bytes, journal and pin from the disk (its account was removed); a
    /// reader that has it open keeps reading nothing more from it.
    public func forget(key: CacheKey) {
        let entry = state.withLock { state -> CacheEntry? in
            state.pinned.remove(key.fileName)
            state.dormant[key.fileName] = nil
            return state.live.removeValue(forKey: key)
        }
        entry?.discard()
        unlink(directory + "/" + key.fileName + ".data")
        unlink(directory + "/" + key.fileName + ".journal")
    }

    /// Bytes on disk of these files, and of those, pinned ones.
    public func usage(of keys: [CacheKey]) -> (cached: Int64, pinned: Int64) {
        let sizes = state.withLock { state in
            keys.map { key -> (Int64, Bool) in
                let name = key.fileName
                return (state.live[key]?.storedBytes ?? state.dormant[name]?.bytes ?? 0, state.pinned.contains(name))
            }
        }
        return sizes.reduce(into: (0, 0)) { total, item in
            total.cached += item.0
            if item.1 { total.pinned += item.0 }
        }
    }

    /// Bytes on disk of one file (what a download has so far).
    public func storedBytes(key: CacheKey) -> Int64 {
        state.withLock { $0.live[key]?.storedBytes ?? $0.dormant[key.fileName]?.bytes ?? 0 }
    }

    private func entry(key: CacheKey, length: Int64, source: any RemoteSource, lease: Bool) throws(InputError) -> CacheEntry {
        let existing = state.withLock { state -> CacheEntry? in
            guard let entry = state.live[key] else { return nil }
            if lease { entry.leases += 1 }
            entry.touch()
            return entry
        }
        if let existing {
            existing.update(source: source)
            return existing
        }
        // Created under the lock: a second entry for the same file, made meanwhile by another
        // thread, would truncate the data file under the first one's readers (found by
        // ThreadSanitizer's timing, as short reads while indexing).
        return try state.withLock { state throws(InputError) -> CacheEntry in
            if let entry = state.live[key] {
                if lease { entry.leases += 1 }
                return entry
            }
            let entry = try CacheEntry(key: key, length: length, source: source, directory: directory, cache: self)
            state.live[key] = entry
            state.dormant[key.fileName] = nil
            if lease { entry.leases += 1 }
            return entry
        }
    }

    func release(_ entry: CacheEntry) {
        state.withLock { state in
            entry.leases -= 1
            closeIdleEntries(&state)
        }
    }

    private func closeIdleEntries(_ state: inout State) {
        let idle = state.live.values.filter { !$0.isBusy }.sorted { $0.lastAccess < $1.lastAccess }
        guard idle.count > Self.idleEntries else { return }
        for entry in idle.prefix(idle.count - Self.idleEntries) {
            state.live[entry.key] = nil
            state.dormant[entry.key.fileName] = (entry.storedBytes, entry.lastAccess)
        }
    }

    /// After a fetch: if the cache is over budget, drop the least recently used files that are
    /// not in use (not open, not pinned, not being fetched). Pinned bytes count against the
    /// budget but are never dropped: the offline downloads keep them within it themselves.
    func noteStored() {
        let removed = state.withLock { state -> [String] in
            var total = state.dormant.values.reduce(0) { $0 + $1.bytes } + state.live.values.reduce(0) { $0 + $1.storedBytes }
            guard total > budget else { return [] }
            var candidates: [(name: String, bytes: Int64, lastAccess: Date, key: CacheKey?)] =
                state.dormant.filter { !state.pinned.contains($0.key) }.map { ($0.key, $0.value.bytes, $0.value.lastAccess, nil) }
            candidates += state.live.values.filter { !$0.isBusy && !state.pinned.contains($0.key.fileName) }
                .map { ($0.key.fileName, $0.storedBytes, $0.lastAccess, $0.key) }
            var removed: [String] = []
            for candidate in candidates.sorted(by: { $0.lastAccess < $1.lastAccess }) where total > budget {
                if let key = candidate.key { state.live[key] = nil } else { state.dormant[candidate.name] = nil }
                total -= candidate.bytes
                removed.append(candidate.name)
            }
            return removed
        }
        for name in removed {
            unlink(directory + "/" + name + ".data")
            unlink(directory + "/" + name + ".journal")
        }
        if !removed.isEmpty { logger.info("cache over budget: evicted \(removed.count) file(s)") }
    }
}
