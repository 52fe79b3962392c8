import Foundation
import Glibc
import NimbusSupport
import Synchronization

/// A decoder's or tag scanner's view of a cached remote file.
public final class CachedInputStream: InputStream {
    public let uri: String
    public let mimeType: String?
    public private(set) var position: Int64 = 0
    public var size: Int64? { entry.length }
    public var isSeekable: Bool { true }
    public var isRemote: Bool { true }
    private let entry: CacheEntry
    private let cache: RangeCache
    private let reader: ReaderState

    init(entry: CacheEntry, cache: RangeCache, purpose: FetchPurpose, uri: String, mimeType: String?) {
        self.entry = entry
        self.cache = cache
        self.uri = uri
        self.mimeType = mimeType
        self.reader = ReaderState(purpose: purpose)
    }

    deinit {
        reader.close()
        cache.release(entry)
    }

    public func read(into buffer: UnsafeMutableRawBufferPointer) throws(InputError) -> Int {
        let count = try entry.read(at: position, into: buffer, reader: reader)
        reader.note(read: position, count: count)
        position += Int64(count)
        return count
    }

    public func prefetch(_ range: Range<Int64>) { entry.prefetch([range], purpose: reader.purpose) }

    /// The caller's own request just proved the version current (a URL's probe).
    public func markConfirmed() { entry.markConfirmed() }

    /// See `CacheEntry.confirm`: with the cache's `revalidateAfter` window.
    public func confirmFreshness() throws(InputError) {
        try entry.confirm(window: cache.revalidateAfter, limit: RangeCache.confirmationLimit)
    }

    public func seek(to offset: Int64) throws(InputError) {
        guard offset >= 0 else { throw InputError("Invalid seek offset \(offset) in \"\(uri)\"") }
        position = offset
    }
}
