import Glibc

/// Replaces a file so that after a crash at any moment it holds either the old or the new
/// contents: write a temporary file beside it, fsync, rename over, fsync the directory.
public enum AtomicFile {
    /// `mode` 0o600 keeps a secret (a token file) to its owner from the first byte on.
    public static func write(_ bytes: [UInt8], to path: String, mode: mode_t = 0o644) throws(SystemError) {
        let temporary = path + ".tmp.\(getpid())"
        unlink(temporary)
        let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode)
        guard fd >= 0 else { throw SystemError("Failed to create \"\(temporary)\"") }
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress! + offset, bytes.count - offset) }
            if written < 0 {
                if errno == EINTR { continue }
                let error = SystemError("Failed to write \"\(temporary)\"")
                close(fd)
                unlink(temporary)
                throw error
            }
            offset += written
        }
        guard fsync(fd) == 0 else {
            let error = SystemError("Failed to sync \"\(temporary)\"")
            close(fd)
            unlink(temporary)
            throw error
        }
        close(fd)
        guard rename(temporary, path) == 0 else {
            let error = SystemError("Failed to replace \"\(path)\"")
            unlink(temporary)
            throw error
        }
        syncDirectory(of: path)
    }

    /// Removes what a `write` interrupted by a crash left in `directory` (`NAME.tmp.PID` of a
    /// process that is gone); returns the names removed. The replaced files are untouched.
    @discardableResult
    public static func removeLeftovers(inDirectory directory: String) -> [String] {
        guard let handle = opendir(directory) else { return [] }
        var names: [String] = []
        while let entry = readdir(handle) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            let digits = name.utf8.reversed().prefix { $0 >= 0x30 && $0 <= 0x39 }.count
            guard digits > 0, name.utf8.dropLast(digits).reversed().starts(with: ".tmp.".utf8.reversed()),
                let pid = Int32(String(name.utf8.suffix(digits))!), pid > 0, pid != getpid(), kill(pid, 0) != 0
            else { continue }
            names.append(name)
        }
        closedir(handle)
        for name in names { unlink(directory + "/" + name) }
        return names
    }

    /// Makes a rename durable: the directory entry itself must reach the disk.
    public static func syncDirectory(of path: String) {
        let directory = path.lastIndex(of: "/").map { String(path[..<$0]) } ?? "."
        let fd = open(directory.isEmpty ? "/" : directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if fd >= 0 {
            fsync(fd)
            close(fd)
        }
    }

    /// The whole file, or nil if it does not exist.
    public static func read(_ path: String) throws(SystemError) -> [UInt8]? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        if fd < 0 {
            if errno == ENOENT { return nil }
            throw SystemError("Failed to open \"\(path)\"")
        }
        defer { close(fd) }
        var result: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 20)
        while true {
            let count = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress!, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw SystemError("Failed to read \"\(path)\"")
            }
            if count == 0 { return result }
            result.append(contentsOf: chunk[..<count])
        }
    }
}
