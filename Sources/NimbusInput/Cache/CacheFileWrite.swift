import Glibc

extension CacheEntry {
    /// Writes all of `count` bytes at `offset`; 0, or the errno that stopped it. A disk that
    /// fills up mid-write first takes part of the bytes without an error; the next write then
    /// says why (ENOSPC), which is what the user sees instead of a made-up EIO.
    static func writeAll(_ fd: Int32, _ base: UnsafeRawPointer?, _ count: Int, at offset: Int64) -> Int32 {
        guard let base else { return count == 0 ? 0 : EINVAL }
        var done = 0
        while done < count {
            let written = pwrite(fd, base + done, count - done, off_t(offset + Int64(done)))
            if written > 0 {
                done += written
            } else if written < 0 && errno == EINTR {
                continue
            } else {
                return written == 0 ? EIO : errno
            }
        }
        return 0
    }
}
