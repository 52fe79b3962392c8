import Foundation
import Glibc

/// Files made on the box rather than fetched — a song transcoded for a phone — kept in the
/// cache as complete entries, so they share its byte budget and its least-recently-used
/// eviction with the cloud songs, and are read back with ranges like any cached file.
extension RangeCache {
    /// A path in the cache's folder for a file being made (removed at start-up if a crash
    /// left it there).
    public func temporaryPath() -> String {
        directory + "/made-\(UInt64.random(in: 1...UInt64.max)).partial"
    }

    /// Takes the finished file at `path` as the whole of `key`: its data moves in first and
    /// its journal is written after, so a crash in between leaves bytes nobody trusts, never a
    /// journal vouching for bytes that are not there.
    public func adopt(key: CacheKey, file path: String) -> Bool {
        var info = stat()
        guard stat(path, &info) == 0, info.st_size > 0 else {
            unlink(path)
            return false
        }
        let length = Int64(info.st_size)
        let base = directory + "/" + key.fileName
        let adopted = state.withLock { state -> Bool in
            // Someone reading an older copy of it keeps that one; this one waits for next time.
            guard state.live[key] == nil else { return false }
            unlink(base + ".journal")
            guard rename(path, base + ".data") == 0 else { return false }
            var journal = CacheJournal(path: base + ".journal")
            journal.compact(RangeSet([0..<length]))
            journal.close()
            state.dormant[key.fileName] = (length, Date())
            return true
        }
        if !adopted { unlink(path) }
        noteStored()
        return adopted
    }

    /// The length of a complete made file, nil when it is not (or no longer) in the cache.
    public func completeLength(key: CacheKey) -> Int64? {
        let name = key.fileName
        let live = state.withLock { state -> CacheEntry?? in
            if let entry = state.live[key] { return .some(entry) }
            return state.dormant[name] == nil ? nil : .some(nil)
        }
        guard let live else { return nil }
        if let entry = live { return entry.isComplete ? entry.length : nil }
        var info = stat()
        let base = directory + "/" + name
        guard stat(base + ".data", &info) == 0, info.st_size > 0 else { return nil }
        let length = Int64(info.st_size)
        return CacheJournal.recorded(at: base + ".journal").contains(0..<length) ? length : nil
    }

    /// Reads a complete made file; nil when it is not there whole.
    public func openMade(key: CacheKey, uri: String, mimeType: String?) -> CachedInputStream? {
        guard let length = completeLength(key: key) else { return nil }
        return try? open(key: key, length: length, source: NothingToFetch(), purpose: .playing, uri: uri, mimeType: mimeType)
    }

    /// Leftovers of files being made when the daemon stopped.
    func removePartials() {
        for name in (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? [] where name.hasSuffix(".partial") {
            unlink(directory + "/" + name)
        }
    }
}

/// The source of a made file: there is no server to fetch a missing byte from.
struct NothingToFetch: RemoteSource {
    func fetch(_ range: Range<Int64>, purpose: FetchPurpose, into sink: (UnsafeRawBufferPointer) -> Bool) throws(RemoteError) {
        throw RemoteError(.notFound, "a file made on this box is no longer in the cache")
    }
}
