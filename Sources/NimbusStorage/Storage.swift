import NimbusModel
import NimbusInput

/// What a storage lists: enough to decide whether a file needs rescanning.
public struct StorageEntry: Sendable, Hashable {
    public enum Kind: Sendable, Hashable { case file, directory }

    public let name: String
    public let kind: Kind
    public let size: Int64
    /// Seconds since 1970.
    public let modified: Int64
    /// (device, inode) of the target, for detecting symlink loops; nil where unknown.
    public let identity: FileIdentity?
    /// Reached through a symbolic link (listfiles hides these, as MPD does).
    public let isSymbolicLink: Bool
    /// Tags the listing itself knows (a podcast feed's): the database takes them instead of
    /// reading the file, which is then opened only for a duration the listing lacks.
    public let tag: Tag?

    public init(
        name: String, kind: Kind, size: Int64, modified: Int64, identity: FileIdentity?, isSymbolicLink: Bool = false, tag: Tag? = nil
    ) {
        self.name = name
        self.kind = kind
        self.size = size
        self.modified = modified
        self.identity = identity
        self.isSymbolicLink = isSymbolicLink
        self.tag = tag
    }
}

public struct FileIdentity: Sendable, Hashable {
    public let device: UInt64
    public let inode: UInt64
    public init(device: UInt64, inode: UInt64) {
        self.device = device
        self.inode = inode
    }
}

public struct StorageError: Error, CustomStringConvertible, Sendable {
    public enum Kind: Sendable { case notFound, notADirectory, outsideRoot, invalidName, io, permission }
    public let kind: Kind
    public let message: String
    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }
    public var description: String { message }
}

/// Where music lives: the local music directory, a cloud account, or both mounted into one
/// tree. Paths are relative URIs with `/` separators, `""` being the root.
///
/// Besides listing and opening, a storage says what it can do for a file behind a network:
/// fetch it ahead, keep it on disk, report why it cannot be reached. A local folder does none
/// of that (the defaults), and callers ask instead of checking which storage they hold.
public protocol Storage: Sendable {
    /// Entries of a directory, in the storage's own order (readdir order for local folders,
    /// which is also the order MPD keeps songs in). Entries that cannot be used (loops,
    /// names that are not UTF-8, links leaving the root) are reported to `skipped`.
    func list(_ directory: String, skipped: (String) -> Void) throws(StorageError) -> [StorageEntry]
    func stat(_ path: String) throws(StorageError) -> StorageEntry
    func open(_ path: String) throws(InputError) -> any InputStream
    /// Opens for a purpose: remote storages fetch a player's bytes before a scanner's.
    func open(_ path: String, purpose: FetchPurpose) throws(InputError) -> any InputStream
    /// The absolute file-system path, for storages that have one.
    func localPath(_ path: String) -> String?

    /// Starts fetching what a player reads first of a file it will open soon (head and tail).
    func prefetch(_ path: String)
    /// The file as an offline download sees it; nil for files that are on disk anyway.
    func offlineFile(_ path: String) -> OfflineFile?
    /// Persists what the storage learnt from listings, so its files open offline next time.
    func flush()
    /// Lists one file again (blocking); true when its content changed since it was listed,
    /// and from then on the new version is what `open` reads.
    func refresh(_ path: String) -> Bool
    /// True when the top-level folder `name` is a mount of another storage (a cloud account,
    /// a share) rather than a folder of this one: how a URI's place is told without asking
    /// which kind of storage answers.
    func isMountPoint(_ name: String) -> Bool
    /// A picture the storage knows for a file or folder without it being inside it or beside
    /// it: a podcast episode's image (else its show's), fetched through the range cache.
    /// Blocking; nil when there is none.
    func picture(_ path: String) -> StoragePicture?
}

/// An image and its type (`image/jpeg`), as `albumart` and `readpicture` send it.
public struct StoragePicture: Sendable, Equatable {
    public let data: [UInt8]
    public let mimeType: String?

    public init(data: [UInt8], mimeType: String?) {
        self.data = data
        self.mimeType = mimeType
    }

    /// The type an image's first bytes say (JPEG, PNG, GIF, WebP), else the one given.
    public static func sniffedType(_ data: [UInt8], declared: String?) -> String? {
        if data.starts(with: [0xFF, 0xD8, 0xFF]) { return "image/jpeg" }
        if data.starts(with: [0x89, 0x50, 0x4E, 0x47]) { return "image/png" }
        if data.starts(with: Array("GIF8".utf8)) { return "image/gif" }
        if data.count >= 12, data.starts(with: Array("RIFF".utf8)), Array(data[8..<12]) == Array("WEBP".utf8) { return "image/webp" }
        return declared
    }
}

extension Storage {
    public func open(_ path: String, purpose: FetchPurpose) throws(InputError) -> any InputStream { try open(path) }
    public func prefetch(_ path: String) {}
    public func offlineFile(_ path: String) -> OfflineFile? { nil }
    public func flush() {}
    public func refresh(_ path: String) -> Bool { false }
    public func isMountPoint(_ name: String) -> Bool { false }
    public func picture(_ path: String) -> StoragePicture? { nil }
}
