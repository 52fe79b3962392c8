import Glibc
import NimbusInput

/// Finished transcodes kept in the range cache under the song, its version, the format and
/// the bit rate: a second play is read from disk with a length and ranges, as a file is,
/// and the cache's budget and eviction hold them with everything else it keeps.
public struct TranscodeStore: Sendable {
    let cache: RangeCache

    public init(cache: RangeCache) { self.cache = cache }

    /// `version`: what changes when the song's file does (its modification time), so a
    /// replaced file is never served as its old transcode.
    public static func key(uri: String, version: String, format: TranscodeFormat, kbps: Int) -> CacheKey {
        CacheKey(account: "transcode", fileID: uri, version: "\(version)/\(format.rawValue)/\(kbps)")
    }

    /// The transcode made before, whole; nil when it is not in the cache.
    public func cached(_ key: CacheKey, format: TranscodeFormat) -> (any NimbusInput.InputStream)? {
        cache.openMade(key: key, uri: key.fileID, mimeType: format.contentType)
    }

    /// A file to write a transcode into as it is made; it enters the cache only if finished.
    public func begin(_ key: CacheKey) -> Writer? { Writer(key: key, cache: cache) }

    public final class Writer {
        let key: CacheKey
        let cache: RangeCache
        let path: String
        private var fd: Int32
        private var failed = false

        init?(key: CacheKey, cache: RangeCache) {
            self.key = key
            self.cache = cache
            path = cache.temporaryPath()
            fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
            guard fd >= 0 else { return nil }
        }

        deinit { abandon() }

        /// A write that fails (disk full) only means this transcode is not kept.
        public func append(_ bytes: UnsafeRawBufferPointer) {
            guard !failed, fd >= 0, let base = bytes.baseAddress else { return }
            var offset = 0
            while offset < bytes.count {
                let written = write(fd, base + offset, bytes.count - offset)
                if written <= 0 {
                    failed = true
                    return
                }
                offset += written
            }
        }

        /// Replaces bytes already written (an MP3's tag, once its counts are known).
        public func overwrite(_ bytes: [UInt8], at offset: Int64) {
            guard !failed, fd >= 0 else { return }
            let written = bytes.withUnsafeBytes { pwrite(fd, $0.baseAddress, $0.count, off_t(offset)) }
            if written != bytes.count { failed = true }
        }

        /// The whole transcode was made: synced and handed to the cache.
        public func commit() {
            guard fd >= 0 else { return }
            let synced = fdatasync(fd) == 0
            close(fd)
            fd = -1
            if failed || !synced {
                unlink(path)
                return
            }
            _ = cache.adopt(key: key, file: path)
        }

        /// Stopped short (the phone went away, the source failed): nothing is kept.
        public func abandon() {
            guard fd >= 0 else { return }
            close(fd)
            fd = -1
            unlink(path)
        }
    }
}
