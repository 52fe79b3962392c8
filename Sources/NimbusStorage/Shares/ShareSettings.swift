import NimbusInput

/// What the share providers (SMB, SFTP, FTP) have in common: the address from an account's
/// settings, the items their listings make, the bound on a listing, the login check.
enum ShareSettings {
    /// The share an account's settings describe: `url` with the `user` setting (which wins
    /// over one in the address) and `root` below the address's own folder. A password in the
    /// `url` setting is refused: it belongs in the password file.
    static func url(_ settings: [String: String], scheme expected: String, root: String = "/") throws(StorageError) -> ShareURL {
        guard let text = settings["url"], let parsed = ShareURL(text) else {
            throw StorageError(.io, "\"url\" must be a \(expected):// address")
        }
        guard parsed.scheme == expected || (expected == "ftp" && parsed.scheme == "ftps") else {
            throw StorageError(.io, "\"url\" must be a \(expected):// address")
        }
        guard parsed.password == nil else { throw StorageError(.io, "the password goes in the password file, not in \"url\"") }
        var options = parsed.options
        for key in ["workgroup", "fingerprint", "key_file", "known_hosts_file", "version", "nfsport", "uid", "gid"] {
            if let value = settings[key] { options[key] = value }
        }
        let user = settings["user"] ?? parsed.user
        var path = parsed.path == "/" ? "" : parsed.path
        if root != "/" && !root.isEmpty { path += root.hasPrefix("/") ? root : "/" + root }
        return ShareURL(scheme: parsed.scheme, user: user, host: parsed.host, port: parsed.port, path: path.isEmpty ? "/" : path, options: options)
    }

    /// One look at the share's top folder with the credentials: a refused login, a missing
    /// share or folder and an unreachable server each get their own message.
    static func checkLogin(_ provider: any CloudProvider) throws(StorageError) {
        let top = try provider.item("")
        guard top.isDirectory else { throw StorageError(.notADirectory, "the address names a file, not a folder") }
    }
}

enum ShareListing {
    /// A folder with more entries than this is refused rather than held in memory whole:
    /// ten times the largest real music folder.
    static let maximumEntries = 250_000

    static func tooLarge(_ account: String, _ path: String) -> StorageError {
        StorageError(.io, "\(account): \(path.isEmpty ? "the top folder" : path) has more than \(maximumEntries) entries")
    }

    /// A file or folder described by its parent's listing (the top folder by listing it), so
    /// its size and time are the ones every listing gives: the cache keys its bytes by them.
    static func item(_ path: String, account: String, list: (String) throws(StorageError) -> [RemoteItem]) throws(StorageError) -> RemoteItem {
        if path.isEmpty {
            _ = try list("")
            return RemoteItem(name: "", path: "", isDirectory: true, id: "")
        }
        let parent = path.split(separator: "/").dropLast().joined(separator: "/")
        guard let item = try list(parent).first(where: { $0.path == path }) else {
            throw StorageError(.notFound, "\(account): \(path): no such file or folder")
        }
        return item
    }

    /// Reads `range` of `item` into `sink`, `chunk` bytes at a time through `read(offset,
    /// buffer, count)`, which returns how many bytes it read. A read of nothing before the
    /// range ends means the file shrank on the server: the cache hears `.changed`.
    static func readChunks(
        _ item: RemoteItem, account: String, _ range: Range<Int64>, chunk: Int, into sink: (UnsafeRawBufferPointer) -> Bool,
        read: (_ offset: Int64, _ buffer: UnsafeMutableRawPointer, _ count: Int) throws(RemoteError) -> Int
    ) throws(RemoteError) {
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: chunk, alignment: 16)
        defer { buffer.deallocate() }
        var position = range.lowerBound
        while position < range.upperBound {
            let count = try read(position, buffer.baseAddress!, Int(min(Int64(chunk), range.upperBound - position)))
            if count == 0 { throw RemoteError(.changed, "\(account): \(item.path) is shorter than listed (it changed on the server)") }
            position += Int64(count)
            guard sink(UnsafeRawBufferPointer(rebasing: buffer[0..<count])) else { return }
        }
    }

    /// A listed file, cached under its path, size and time: a file replaced on the server is a
    /// new version, never spliced into the old one's cached bytes.
    static func item(name: String, path: String, directory: Bool, size: Int64, modified: Int64) -> RemoteItem {
        RemoteItem(
            name: name, path: path, isDirectory: directory, size: directory ? 0 : size, modified: modified, id: path,
            version: directory ? "" : "\(modified)-\(size)")
    }
}

extension ShareURL {
    init(scheme: String, user: String?, host: String, port: Int?, path: String, options: [String: String]) {
        self.scheme = scheme
        self.user = user
        self.password = nil
        self.host = host
        self.port = port
        self.path = path
        self.options = options
    }
}
