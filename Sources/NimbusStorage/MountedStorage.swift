import NimbusInput
import Synchronization

/// The music directory with cloud accounts mounted as top-level folders
/// (`yadisk/Artist/Album/01.flac`), so the database, queue and stored playlists see one tree.
/// A mount hides a local folder of the same name.
public final class MountedStorage: Storage {
    public let root: any Storage
    private let mounts = Mutex<[String: any Storage]>([:])

    public init(root: any Storage) {
        self.root = root
    }

    public func mount(_ name: String, _ storage: any Storage) {
        mounts.withLock { $0[name] = storage }
    }

    @discardableResult
    public func unmount(_ name: String) -> (any Storage)? { mounts.withLock { $0.removeValue(forKey: name) } }

    public func mounted(_ name: String) -> (any Storage)? { mounts.withLock { $0[name] } }
    public var mountNames: [String] { mounts.withLock { $0.keys.sorted() } }
    public func isMountPoint(_ name: String) -> Bool { mounted(name) != nil }

    public func picture(_ path: String) -> StoragePicture? {
        let (storage, inner, _) = route(path)
        return storage.picture(inner)
    }

    /// The storage a path belongs to and the path within it.
    public func route(_ path: String) -> (storage: any Storage, path: String, mount: String?) {
        let first = path.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
        if let name = first.first.map(String.init), let storage = mounted(name) {
            return (storage, first.count > 1 ? String(first[1]) : "", name)
        }
        return (root, path, nil)
    }

    public func list(_ directory: String, skipped: (String) -> Void) throws(StorageError) -> [StorageEntry] {
        let (storage, inner, mount) = route(directory)
        guard mount == nil, directory.isEmpty else { return try storage.list(inner, skipped: skipped) }
        let names = Set(mountNames)
        var entries = ((try? root.list("", skipped: skipped)) ?? []).filter { !names.contains($0.name) }
        for name in names.sorted() {
            entries.append(StorageEntry(name: name, kind: .directory, size: 0, modified: 0, identity: nil))
        }
        return entries
    }

    public func stat(_ path: String) throws(StorageError) -> StorageEntry {
        let (storage, inner, mount) = route(path)
        if let mount, inner.isEmpty { return StorageEntry(name: mount, kind: .directory, size: 0, modified: 0, identity: nil) }
        return try storage.stat(inner)
    }

    public func open(_ path: String) throws(InputError) -> any NimbusInput.InputStream {
        let (storage, inner, _) = route(path)
        return try storage.open(inner)
    }

    public func open(_ path: String, purpose: FetchPurpose) throws(InputError) -> any NimbusInput.InputStream {
        let (storage, inner, _) = route(path)
        return try storage.open(inner, purpose: purpose)
    }

    public func localPath(_ path: String) -> String? {
        let (storage, inner, mount) = route(path)
        return mount == nil ? storage.localPath(inner) : nil
    }

    public func prefetch(_ path: String) {
        let (storage, inner, _) = route(path)
        storage.prefetch(inner)
    }

    public func offlineFile(_ path: String) -> OfflineFile? {
        let (storage, inner, _) = route(path)
        return storage.offlineFile(inner)
    }

    public func refresh(_ path: String) -> Bool {
        let (storage, inner, _) = route(path)
        return storage.refresh(inner)
    }

    public func flush() {
        root.flush()
        for storage in mounts.withLock({ Array($0.values) }) { storage.flush() }
    }
}
