import NimbusInput

/// A file or folder of a cloud account, as its listing describes it.
public struct RemoteItem: Sendable, Codable, Equatable {
    public var name: String
    /// Relative to the account's root folder, `/`-separated, no leading slash.
    public var path: String
    public var isDirectory: Bool
    public var size: Int64
    /// Seconds since 1970.
    public var modified: Int64
    /// The provider's id for the file (WebDAV and Yandex: its path).
    public var id: String
    /// What changes when the content does: ETag, rev, md5, cTag …
    public var version: String
    public var mimeType: String?
    /// The server's file number where it gives one (SMB): a folder reached again through a
    /// symbolic link loop has the same one, so the update stops there.
    public var inode: UInt64?

    public init(
        name: String, path: String, isDirectory: Bool, size: Int64 = 0, modified: Int64 = 0, id: String, version: String = "",
        mimeType: String? = nil
    ) {
        self.name = name
        self.path = path
        self.isDirectory = isDirectory
        self.size = size
        self.modified = modified
        self.id = id
        self.version = version
        self.mimeType = mimeType
    }

    var entry: StorageEntry {
        StorageEntry(
            name: name, kind: isDirectory ? .directory : .file, size: size, modified: modified,
            identity: inode.map { FileIdentity(device: 0, inode: $0) })
    }
}

/// One cloud account's API: listing folders, describing files, and a byte source per file
/// (download links, tokens and retries are the provider's business).
public protocol CloudProvider: Sendable {
    /// Items of the folder at `path` (relative to the account root; "" is the root).
    func list(_ path: String) throws(StorageError) -> [RemoteItem]
    /// The same, telling `skipped` about entries left out (a name that is not UTF-8).
    func list(_ path: String, skipped: (String) -> Void) throws(StorageError) -> [RemoteItem]
    func item(_ path: String) throws(StorageError) -> RemoteItem
    func source(for item: RemoteItem) -> any RemoteSource
    /// The account's saved secret changed (a password signed in or out): read it again.
    /// OAuth providers need nothing here: their tokens notice a changed token file themselves.
    func reloadCredentials()
}

extension CloudProvider {
    public func reloadCredentials() {}
    public func list(_ path: String, skipped: (String) -> Void) throws(StorageError) -> [RemoteItem] { try list(path) }
}

extension StorageError {
    /// The storage-level error for a failed API call, with the account's name in it.
    /// The API layer names the account already in most messages: it is not named twice
    /// (`dropbox: dropbox: Couldn't connect to server`).
    static func remote(_ account: String, _ error: RemoteError) -> StorageError {
        let message = error.message.hasPrefix(account + ": ") ? error.message : "\(account): \(error.message)"
        switch error.kind {
        case .notFound: return StorageError(.notFound, message)
        default: return StorageError(.io, message)
        }
    }
}
