import NimbusInput

/// One cloud file as an offline download sees it: its size, its bytes in the range cache,
/// and its account's health (a signed-out account's partial downloads are dropped).
public struct OfflineFile: Sendable {
    public let account: String
    public let key: CacheKey
    public let size: Int64
    public let health: AccountHealth
    let cache: RangeCache
    let source: any RemoteSource

    /// Bytes of it on disk.
    public var storedBytes: Int64 { cache.storedBytes(key: key) }

    /// Fetches what is missing, blocking the calling download thread (see `RangeCache.download`).
    public func download(progress: (Int64) -> Void, stop: ReadInterrupt) throws(InputError) {
        try cache.download(key: key, length: size, source: source, progress: progress, stop: stop)
    }

    /// Pinned bytes are never evicted; unpinned they are ordinary cache again.
    public func setPinned(_ pinned: Bool) { cache.setPinned([key], pinned) }

    /// Drops its bytes (a partial download whose account signed out).
    public func discard() { cache.discard(key: key) }
}
