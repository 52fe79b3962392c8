import Glibc

/// Free bytes where the cache lives, and how many to leave alone: downloads never fill the
/// disk the system and the database also need.
enum DiskSpace {
    static func available(at directory: String) -> (free: Int64, margin: Int64)? {
        var info = statvfs()
        guard statvfs(directory, &info) == 0 else { return nil }
        let block = Int64(info.f_frsize)
        let size = Int64(info.f_blocks) * block
        return (Int64(info.f_bavail) * block, min(64 << 20, size / 20))
    }
}
