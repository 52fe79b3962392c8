import CNFS
import Foundation
import Glibc
import NimbusInput

/// An NFS export through Debian's libnfs, addressed as MPD writes it
/// (`nfs://host/export[?version=4]`): NFSv3 through the server's portmapper by default, NFSv4
/// with `?version=4`. A libnfs context is one connection and is not safe across threads, so
/// each export has one, used under its own lock; every request times out (`nfs_set_timeout`),
/// so a server that stalls or goes away fails the song instead of hanging it, and the next
/// call mounts again.
final class NFSProvider: CloudProvider, @unchecked Sendable {
    let account: String
    let share: ShareURL
    private let lock = NSLock()
    /// Only touched under `lock`; nil until mounted, and again after a failure.
    private var context: OpaquePointer?
    static let chunk = 1 << 20
    static let timeoutMilliseconds: Int32 = 15_000

    init(account: String, share: ShareURL) {
        self.account = account
        self.share = share
    }

    deinit { if let context { nfs_destroy_context(context) } }

    /// The libnfs URL of the export, with its options (`version`, `nfsport`, `uid`, `gid`).
    private var exportURL: String {
        let options = share.options.filter { ["version", "nfsport", "uid", "gid"].contains($0.key) }.sorted { $0.key < $1.key }
        return "nfs://\(share.host)\(share.path == "/" ? "/" : HTTPHelpers.encode(share.path))"
            + (options.isEmpty ? "" : "?" + options.map { "\($0.key)=\($0.value)" }.joined(separator: "&"))
    }

    /// Runs `body` with a mounted context, under the lock; a failed call drops the context,
    /// so the next one mounts afresh (a restarted server).
    private func withContext<T>(_ path: String, _ body: (OpaquePointer) -> (T?, Int32)) -> Result<T, RemoteError> {
        lock.lock()
        defer { lock.unlock() }
        if context == nil {
            guard let made = nfs_init_context() else { return .failure(RemoteError(.transient, "\(account): libnfs could not start")) }
            nfs_set_timeout(made, Self.timeoutMilliseconds)
            guard let url = nfs_parse_url_dir(made, exportURL) else {
                let message = String(cString: nfs_get_error(made))
                nfs_destroy_context(made)
                return .failure(RemoteError(.permanent, "\(account): \(message)"))
            }
            defer { nfs_destroy_url(url) }
            let result = nfs_mount(made, url.pointee.server, url.pointee.path)
            guard result == 0 else {
                let message = String(cString: nfs_get_error(made))
                nfs_destroy_context(made)
                return .failure(remoteError(-result, "", detail: message))
            }
            context = made
        }
        let (value, code) = body(context!)
        if let value { return .success(value) }
        let detail = String(cString: nfs_get_error(context!))
        if code != ENOENT && code != ENOTDIR {
            nfs_destroy_context(context!)
            context = nil
        }
        return .failure(remoteError(code, path, detail: detail))
    }

    private func remoteError(_ code: Int32, _ path: String, detail: String) -> RemoteError {
        let place = path.isEmpty ? account : account + ": " + path
        switch code {
        case ENOENT, ENOTDIR: return RemoteError(.notFound, "\(place): no such file or folder")
        case EACCES, EPERM: return RemoteError(.unauthorized, "\(account): the server refused access (\(detail))")
        default: return RemoteError(.transient, "\(place): \(detail.isEmpty ? String(cString: strerror(code)) : detail)", unreachable: code == ECONNREFUSED || code == ETIMEDOUT)
        }
    }

    private func storageError(_ error: RemoteError) -> StorageError {
        switch error.kind {
        case .notFound: return StorageError(.notFound, error.message)
        case .unauthorized: return StorageError(.permission, error.message)
        default: return StorageError(.io, error.message)
        }
    }

    private static func absolute(_ path: String) -> String { "/" + path }

    func list(_ path: String) throws(StorageError) -> [RemoteItem] { try list(path, skipped: { _ in }) }

    func list(_ path: String, skipped: (String) -> Void) throws(StorageError) -> [RemoteItem] {
        var skippedNames: [String] = []
        let result: Result<[RemoteItem], RemoteError> = withContext(path) { nfs in
            var directory: OpaquePointer?
            let opened = nfs_opendir(nfs, Self.absolute(path), &directory)
            guard opened == 0, let directory else { return (nil, -opened) }
            defer { nfs_closedir(nfs, directory) }
            var items: [RemoteItem] = []
            while let entry = nfs_readdir(nfs, directory), items.count <= ShareListing.maximumEntries {
                guard let raw = entry.pointee.name else { continue }
                guard let name = String(validatingCString: raw) else {
                    skippedNames.append("Skipping \"\(String(cString: raw))\" in \"\(path)\" of \(account): name is not valid UTF-8")
                    continue
                }
                if name == "." || name == ".." { continue }
                let mode = UInt64(entry.pointee.mode)
                let directory = cnfs_is_directory(mode) != 0
                guard directory || cnfs_is_file(mode) != 0 else { continue }
                var item = ShareListing.item(
                    name: name, path: path.isEmpty ? name : path + "/" + name, directory: directory, size: Int64(entry.pointee.size),
                    modified: Int64(entry.pointee.mtime.tv_sec))
                if entry.pointee.inode != 0 { item.inode = entry.pointee.inode }
                items.append(item)
            }
            return (items, 0)
        }
        skippedNames.forEach(skipped)
        switch result {
        case .success(let items):
            guard items.count <= ShareListing.maximumEntries else { throw ShareListing.tooLarge(account, path) }
            return items
        case .failure(let error): throw storageError(error)
        }
    }

    func item(_ path: String) throws(StorageError) -> RemoteItem {
        let result: Result<nfs_stat_64, RemoteError> = withContext(path) { nfs in
            var info = nfs_stat_64()
            let code = nfs_stat64(nfs, Self.absolute(path), &info)
            return code == 0 ? (info, 0) : (nil, -code)
        }
        switch result {
        case .success(let info):
            var item = ShareListing.item(
                name: String(path.split(separator: "/").last ?? ""), path: path, directory: cnfs_is_directory(info.nfs_mode) != 0,
                size: Int64(info.nfs_size), modified: Int64(info.nfs_mtime))
            if info.nfs_ino != 0 { item.inode = info.nfs_ino }
            return item
        case .failure(let error): throw storageError(error)
        }
    }

    func source(for item: RemoteItem) -> any RemoteSource { NFSSource(provider: self, item: item) }

    /// Reads `range` a chunk at a time (the lock taken per chunk), after checking at open that
    /// the file still has the listed size and time.
    func read(_ item: RemoteItem, _ range: Range<Int64>, into sink: (UnsafeRawBufferPointer) -> Bool) throws(RemoteError) {
        try ShareListing.readChunks(item, account: account, range, chunk: Self.chunk, into: sink) { offset, buffer, wanted throws(RemoteError) in
            // One open per chunk keeps no handle across a lost connection; NFS opens are cheap.
            let result: Result<Int, RemoteError> = withContext(item.path) { nfs in
                var handle: OpaquePointer?
                let opened = cnfs_open_read(nfs, Self.absolute(item.path), &handle)
                guard opened == 0, let handle else { return (nil, -opened) }
                defer { nfs_close(nfs, handle) }
                var info = nfs_stat_64()
                if nfs_fstat64(nfs, handle, &info) == 0, Int64(info.nfs_size) != item.size || Int64(info.nfs_mtime) != item.modified {
                    return (-1, 0)
                }
                let count = nfs_pread(nfs, handle, UInt64(offset), UInt64(wanted), buffer)
                return count >= 0 ? (Int(count), 0) : (nil, -count)
            }
            let count = try result.get()
            if count < 0 { throw RemoteError(.changed, "\(account): \(item.path) changed on the server") }
            return count
        }
    }
}

struct NFSSource: RemoteSource {
    let provider: NFSProvider
    let item: RemoteItem

    func fetch(_ range: Range<Int64>, purpose: FetchPurpose, into sink: (UnsafeRawBufferPointer) -> Bool) throws(RemoteError) {
        try provider.read(item, range, into: sink)
    }
}

/// `type "nfs"`: `url "nfs://host/export?version=4"`; no sign-in (NFS trusts the client's address).
struct NFSProviderPlugin: CloudProviderPlugin {
    let type = "nfs"
    let schemes = ["nfs"]
    let requiredSettings = ["url"]

    func signIn(_ settings: [String: String]) -> SignInMethod { .none }
    func secretFile(_ settings: [String: String]) -> (setting: String, suffix: String)? { nil }

    func verify(password: String, _ settings: [String: String]) throws(StorageError) {
        let share = try ShareSettings.url(settings, scheme: "nfs")
        try ShareSettings.checkLogin(NFSProvider(account: share.shown, share: share))
    }

    func make(_ context: ProviderContext) throws(StorageError) -> any CloudProvider {
        NFSProvider(account: context.account.name, share: try ShareSettings.url(context.account.settings, scheme: "nfs", root: context.account.root))
    }
}
