import Foundation

/// Where the cache's room goes, for the Offline page's "space used against cache_size": the
/// budget, what is on disk, how much of it is pinned songs, and what the disk has left.
public struct OfflineSpace: Sendable, Equatable {
    public var budget: Int64
    public var used: Int64
    public var pinned: Int64
    public var diskFree: Int64?
}

extension OfflineDownloads {
    /// Blocking (it looks at every cache file's size): run it off the core loop.
    public func space() -> OfflineSpace {
        let pinned = state.withLock { state in state.songs.values.reduce(Int64(0)) { $0 + $1.done } }
        var used: Int64 = 0
        for name in (try? FileManager.default.contentsOfDirectory(atPath: cacheDirectory)) ?? [] where name.hasSuffix(".data") {
            var info = stat()
            if stat(cacheDirectory + "/" + name, &info) == 0 { used += Int64(info.st_blocks) * 512 }
        }
        return OfflineSpace(budget: budget, used: used, pinned: pinned, diskFree: DiskSpace.available(at: cacheDirectory)?.free)
    }
}
