import CSMBClient
import Glibc
import NimbusInput
import Foundation

/// An SMB2/3 share through Debian's libsmbclient. libsmbclient is not safe to call from two
/// threads at once (MPD's SMB storage crashed that way, MPD #1017), so every call of every
/// share goes through one process-wide lock; a read holds it for one chunk at a time, so a
/// pin's download and the playing song take turns. Requests time out (`timeout`), so a server
/// that stalls or vanishes mid-read gives an error, never a hang.
public final class SMBProvider: CloudProvider, @unchecked Sendable {
    public let account: String
    public let share: ShareURL
    /// The libsmbclient context and the credentials its callback reads; both only touched under `SMBProvider.lock`.
    private let context: UnsafeMutablePointer<SMBCCTX>
    private let credentials: UnsafeMutablePointer<nimbus_smb_credentials>
    private let reload: (@Sendable () -> String?)?

    /// Serialises every libsmbclient call in the process.
    static let lock = NSLock()
    static let chunk = 1 << 20

    public init(account: String, share: ShareURL, password: String, timeoutMilliseconds: Int32 = 15_000, reload: (@Sendable () -> String?)? = nil)
        throws(StorageError)
    {
        self.account = account
        self.share = share
        self.reload = reload
        let secret = UnsafeMutablePointer<nimbus_smb_credentials>.allocate(capacity: 1)
        secret.initialize(to: nimbus_smb_credentials())
        nimbus_smb_set_credentials(secret, share.options["workgroup"] ?? "", share.user ?? "", password)
        credentials = secret
        let made = Self.lock.withLock { nimbus_smb_open_context(secret, timeoutMilliseconds, nil) }
        guard let made else {
            secret.deallocate()
            throw StorageError(.io, "\(account): libsmbclient could not start (\(String(cString: strerror(errno))))")
        }
        context = made
    }

    deinit {
        Self.lock.withLock { _ = smbc_free_context(context, 1) }
        // The password does not linger in freed memory.
        memset(credentials, 0, MemoryLayout<nimbus_smb_credentials>.size)
        credentials.deallocate()
    }

    public func reloadCredentials() {
        guard let reload, let password = reload() else { return }
        Self.lock.withLock { nimbus_smb_set_credentials(credentials, share.options["workgroup"] ?? "", share.user ?? "", password) }
    }

    public func list(_ path: String) throws(StorageError) -> [RemoteItem] { try list(path, skipped: { _ in }) }

    public func list(_ path: String, skipped: (String) -> Void) throws(StorageError) -> [RemoteItem] {
        let url = share.location(path, directory: true)
        var items: [RemoteItem] = []
        var failure: Int32 = 0
        Self.lock.withLock {
            guard let directory = nimbus_smb_opendir(context, url) else {
                failure = errno
                return
            }
            defer { _ = nimbus_smb_closedir(context, directory) }
            var info = stat()
            while let entry = nimbus_smb_readdir(context, directory, &info) {
                guard let rawName = entry.pointee.name else { continue }
                let name = String(cString: rawName)
                if name == "." || name == ".." { continue }
                guard name.utf8.count < 1024, !name.contains("/") else {
                    skipped("Skipping \"\(name.prefix(64))…\" in \"\(path)\": name too long")
                    continue
                }
                let directory = nimbus_smb_is_directory(&info) != 0
                guard directory || nimbus_smb_is_file(&info) != 0 else { continue }
                let relative = path.isEmpty ? name : path + "/" + name
                var item = ShareListing.item(
                    name: name, path: relative, directory: directory, size: Int64(entry.pointee.size),
                    modified: Int64(entry.pointee.mtime_ts.tv_sec))
                if info.st_ino != 0 { item.inode = UInt64(info.st_ino) }
                items.append(item)
                if items.count > ShareListing.maximumEntries { break }
            }
        }
        if failure != 0 { throw storageError(failure, path) }
        guard items.count <= ShareListing.maximumEntries else { throw ShareListing.tooLarge(account, path) }
        return items
    }

    public func item(_ path: String) throws(StorageError) -> RemoteItem {
        let url = share.location(path)
        var info = stat()
        let result = Self.lock.withLock { nimbus_smb_stat(context, url, &info) == 0 ? 0 : errno }
        if result != 0 { throw storageError(result, path) }
        var item = ShareListing.item(
            name: String(path.split(separator: "/").last ?? ""), path: path, directory: nimbus_smb_is_directory(&info) != 0,
            size: Int64(info.st_size), modified: Int64(info.st_mtim.tv_sec))
        if info.st_ino != 0 { item.inode = UInt64(info.st_ino) }
        return item
    }

    public func source(for item: RemoteItem) -> any RemoteSource { SMBSource(provider: self, item: item) }

    func storageError(_ code: Int32, _ path: String) -> StorageError {
        let error = remoteError(code, path)
        switch error.kind {
        case .notFound: return StorageError(.notFound, error.message)
        case .unauthorized: return StorageError(.permission, error.message)
        default: return StorageError(.io, error.message)
        }
    }

    func remoteError(_ code: Int32, _ path: String) -> RemoteError {
        let place = path.isEmpty ? account : account + ": " + path
        switch code {
        case ENOENT, ENOTDIR, ENODEV:
            return RemoteError(.notFound, "\(place): no such file or folder")
        case EACCES, EPERM:
            return RemoteError(.unauthorized, "\(account): the server refused the login (or the access)")
        case ELOOP:
            return RemoteError(.permanent, "\(place): symbolic link loop")
        // A request that timed out counts as a server out of reach: the cache then gives up
        // after its short deadline for those instead of waiting 15 s per retry for a minute.
        case ECONNREFUSED, EHOSTUNREACH, ENETUNREACH, EHOSTDOWN, ENOTCONN, ETIMEDOUT:
            return RemoteError(.transient, "\(account): \(share.authority): \(String(cString: strerror(code)))", unreachable: true)
        default:
            return RemoteError(.transient, "\(place): \(String(cString: strerror(code)))")
        }
    }

    /// Reads `range` chunk by chunk, the lock taken per chunk; the file's size and time are
    /// checked at open, so a file replaced since it was listed is never spliced into the cache.
    func read(_ item: RemoteItem, _ range: Range<Int64>, into sink: (UnsafeRawBufferPointer) -> Bool) throws(RemoteError) {
        let url = share.location(item.path)
        let opened: Result<OpaquePointer, RemoteError> = Self.lock.withLock {
            guard let file = nimbus_smb_open(context, url) else { return .failure(remoteError(errno, item.path)) }
            var info = stat()
            if nimbus_smb_fstat(context, file, &info) == 0, Int64(info.st_size) != item.size || Int64(info.st_mtim.tv_sec) != item.modified {
                _ = nimbus_smb_close(context, file)
                return .failure(RemoteError(.changed, "\(account): \(item.path) changed on the server (\(info.st_size) bytes, \(item.size) listed)"))
            }
            guard nimbus_smb_seek(context, file, off_t(range.lowerBound)) >= 0 else {
                let error = remoteError(errno, item.path)
                _ = nimbus_smb_close(context, file)
                return .failure(error)
            }
            return .success(file)
        }
        let file = try opened.get()
        defer { Self.lock.withLock { _ = nimbus_smb_close(context, file) } }
        // Sequential reads from the seek above: the offset is where the file already stands.
        try ShareListing.readChunks(item, account: account, range, chunk: Self.chunk, into: sink) { _, buffer, wanted throws(RemoteError) in
            let count = Self.lock.withLock { nimbus_smb_read(context, file, buffer, wanted) }
            if count < 0 { throw remoteError(errno, item.path) }
            return count
        }
    }
}

struct SMBSource: RemoteSource {
    let provider: SMBProvider
    let item: RemoteItem

    func fetch(_ range: Range<Int64>, purpose: FetchPurpose, into sink: (UnsafeRawBufferPointer) -> Bool) throws(RemoteError) {
        try provider.read(item, range, into: sink)
    }
}

/// `type "smb"`: `url "smb://host/share/folder"`, and `user` with `password_file` unless the
/// share lets guests in (`workgroup` for a domain account).
struct SMBProviderPlugin: CloudProviderPlugin {
    let type = "smb"
    let schemes = ["smb"]

    func signIn(_ settings: [String: String]) -> SignInMethod { settings["user"] != nil ? .password : .none }
    func configuredUser(_ settings: [String: String]) -> String? { settings["user"] }
    let requiredSettings = ["url"]
    let accepts = ["user", "workgroup", "root"]

    func secretFile(_ settings: [String: String]) -> (setting: String, suffix: String)? {
        settings["user"] != nil ? ("password_file", "password") : nil
    }

    func verify(password: String, _ settings: [String: String]) throws(StorageError) {
        let share = try ShareSettings.url(settings, scheme: "smb")
        let provider = try SMBProvider(account: share.shown, share: share, password: password)
        try ShareSettings.checkLogin(provider)
    }

    func make(_ context: ProviderContext) throws(StorageError) -> any CloudProvider {
        let account = context.account, file = account.settings["password_file"], name = account.name
        let share = try ShareSettings.url(account.settings, scheme: "smb", root: account.root)
        let password = account.settings["user"] == nil ? "" : try Secrets.read(file, account: name, kind: "password")
        return try SMBProvider(account: name, share: share, password: password) { try? Secrets.read(file, account: name, kind: "password") }
    }
}
