import NimbusModel
import Glibc
import NimbusInput

/// The local music directory.
///
/// Symbolic links are followed as MPD follows them: by default both those leading outside
/// the root (a library spread over disks as `~/Music/nas -> /mnt/nas`) and those inside it;
/// `follow_outside_symlinks "no"` keeps every read inside the music directory, and
/// `follow_inside_symlinks "no"` skips links to what the library holds anyway. Whether a link
/// is inside is decided on its resolved target, not its spelling. A skipped link is named
/// in the log by the listing's `skipped`.
public struct LocalStorage: Storage {
    public let root: String
    public let followOutsideSymlinks: Bool
    public let followInsideSymlinks: Bool
    private let canonicalRoot: String

    public init(root: String, followOutsideSymlinks: Bool = true, followInsideSymlinks: Bool = true) {
        let trimmed = root.count > 1 && root.hasSuffix("/") ? String(root.dropLast()) : root
        self.root = trimmed
        self.followOutsideSymlinks = followOutsideSymlinks
        self.followInsideSymlinks = followInsideSymlinks
        self.canonicalRoot = Self.realPath(trimmed) ?? trimmed
    }

    public func localPath(_ path: String) -> String? {
        path.isEmpty ? root : root + "/" + path
    }

    public func list(_ directory: String, skipped: (String) -> Void) throws(StorageError) -> [StorageEntry] {
        guard StoragePath.isSafe(directory) else { throw StorageError(.outsideRoot, "Bad path: \(directory)") }
        let path = localPath(directory)!
        try checkInside(path)
        guard let handle = opendir(path) else {
            let kind: StorageError.Kind = errno == ENOENT ? .notFound : errno == ENOTDIR ? .notADirectory : .io
            throw StorageError(kind, "Failed to open directory \"\(path)\": \(String(cString: strerror(errno)))")
        }
        defer { closedir(handle) }
        var entries: [StorageEntry] = []
        while let entry = readdir(handle) {
            let rawName = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                Array(raw.prefix { $0 != 0 })
            }
            if rawName == [0x2E] || rawName == [0x2E, 0x2E] { continue }
            guard !rawName.contains(0x0A), let name = String(validating: rawName, as: UTF8.self) else {
                skipped("Skipping \"\(String(decoding: rawName, as: UTF8.self))\" in \"\(directory)\": name is not valid UTF-8")
                continue
            }
            let relative = StoragePath.join(directory, name)
            do {
                entries.append(try stat(relative, name: name, in: dirfd(handle)))
            } catch {
                skipped("Skipping \"\(relative)\": \(error.message)")
            }
        }
        return entries
    }

    public func stat(_ path: String) throws(StorageError) -> StorageEntry {
        guard StoragePath.isSafe(path) else { throw StorageError(.outsideRoot, "Bad path: \(path)") }
        return try stat(path, name: StoragePath.name(path))
    }

    /// `directory`: an open descriptor of the folder holding `name`, so a listing's every
    /// entry is looked up by name there rather than by walking its whole path again.
    private func stat(_ relative: String, name: String, in directory: Int32? = nil) throws(StorageError) -> StorageEntry {
        let path = localPath(relative)!
        var link = Glibc.stat()
        let looked = directory.map { fstatat($0, name, &link, AT_SYMLINK_NOFOLLOW) } ?? lstat(path, &link)
        guard looked == 0 else {
            throw StorageError(errno == ENOENT ? .notFound : .io, String(cString: strerror(errno)))
        }
        var info = link
        if (link.st_mode & S_IFMT) == S_IFLNK {
            guard fstatat(AT_FDCWD, path, &info, 0) == 0 else { throw StorageError(.notFound, "dangling symbolic link") }
            if !followOutsideSymlinks || !followInsideSymlinks {
                let inside = Self.realPath(path).map { $0 == canonicalRoot || $0.hasPrefix(canonicalRoot + "/") } ?? false
                if !inside, !followOutsideSymlinks {
                    throw StorageError(.outsideRoot, "symbolic link leads outside the music directory (follow_outside_symlinks is no)")
                }
                if inside, !followInsideSymlinks {
                    throw StorageError(.outsideRoot, "symbolic link inside the music directory (follow_inside_symlinks is no)")
                }
            }
        }
        let kind: StorageEntry.Kind
        switch info.st_mode & S_IFMT {
        case S_IFREG: kind = .file
        case S_IFDIR: kind = .directory
        default: throw StorageError(.io, "not a regular file or directory")
        }
        return StorageEntry(
            name: name, kind: kind, size: Int64(info.st_size), modified: Int64(info.st_mtim.tv_sec),
            identity: FileIdentity(device: UInt64(info.st_dev), inode: UInt64(info.st_ino)),
            isSymbolicLink: (link.st_mode & S_IFMT) == S_IFLNK)
    }

    public func open(_ path: String) throws(InputError) -> any InputStream {
        guard StoragePath.isSafe(path) else { throw InputError("Bad path: \(path)") }
        do {
            let entry = try stat(path)
            guard entry.kind == .file else { throw InputError("Not a file: \(path)") }
        } catch let error as StorageError {
            throw InputError("\(path): \(error.message)")
        } catch {
            throw error as! InputError
        }
        do {
            try checkInside(localPath(path)!)
        } catch {
            throw InputError("\(path): \(error.message)")
        }
        return try FileInputStream(path: localPath(path)!, uri: path)
    }

    /// Refuses paths that resolve (through symbolic links anywhere along them) outside the root.
    private func checkInside(_ path: String) throws(StorageError) {
        guard !followOutsideSymlinks, let resolved = Self.realPath(path) else { return }
        guard resolved == canonicalRoot || resolved.hasPrefix(canonicalRoot + "/") else {
            throw StorageError(.outsideRoot, "symbolic link leads outside the music directory (follow_outside_symlinks is no)")
        }
    }

    private static func realPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }
}
