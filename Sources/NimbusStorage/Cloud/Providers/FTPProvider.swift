import NimbusInput
import Synchronization

/// A folder on an FTP server (`ftps://`: with TLS), through libcurl: listings by `MLSD` where
/// the server has it (sizes and times from its facts), else `NLST` and a `SIZE` and `MDTM`
/// per name; ranged reads with `REST`.
final class FTPProvider: CloudProvider {
    let connection: CurlShare
    /// Set once the server turned `MLSD` down: later listings go straight to `NLST`.
    private let noMachineListing = Atomic<Bool>(false)

    init(_ connection: CurlShare) { self.connection = connection }

    func reloadCredentials() { connection.reloadCredentials() }

    func list(_ path: String) throws(StorageError) -> [RemoteItem] { try list(path, skipped: { _ in }) }

    func list(_ path: String, skipped: (String) -> Void) throws(StorageError) -> [RemoteItem] {
        let entries = try entries(path, skipped: skipped)
        var items: [RemoteItem] = []
        for entry in entries where entry.name != "." && entry.name != ".." && !entry.name.contains("/") {
            let relative = path.isEmpty ? entry.name : path + "/" + entry.name
            guard entry.kind != .link else {
                skipped("Skipping \"\(relative)\" of \(connection.account): symbolic links are not followed over FTP")
                continue
            }
            var item = ShareListing.item(name: entry.name, path: relative, directory: entry.kind == .directory, size: entry.size, modified: entry.modified)
            item.inode = entry.inode
            items.append(item)
            guard items.count <= ShareListing.maximumEntries else { throw ShareListing.tooLarge(connection.account, path) }
        }
        return items
    }

    private func entries(_ path: String, skipped: (String) -> Void) throws(StorageError) -> [ListedEntry] {
        if !noMachineListing.load(ordering: .relaxed) {
            var transfer = connection.transfer(path, directory: true)
            transfer.command = "MLSD"
            do throws(FileTransferError) {
                let bytes = try connection.rawData(transfer)
                return CurlShare.lines(bytes, account: connection.account, path: path, skipped: skipped).compactMap(MachineListing.parse)
            } catch {
                // Not understood (500, 502) is the only answer that means no MLSD.
                guard [500, 501, 502].contains(error.response) else {
                    throw connection.storageError(connection.remoteError(error, path))
                }
                noMachineListing.store(true, ordering: .relaxed)
            }
        }
        var names = connection.transfer(path, directory: true)
        names.namesOnly = true
        let bytes = try connection.data(names, path)
        return try CurlShare.lines(bytes, account: connection.account, path: path, skipped: skipped).map { line throws(StorageError) in
            let name = String(line.split(separator: "/").last ?? "")
            return try describe(path.isEmpty ? name : path + "/" + name)
        }
    }

    /// `SIZE` and `MDTM` of a name; a name without a size is a folder.
    private func describe(_ relative: String) throws(StorageError) -> ListedEntry {
        var head = connection.transfer(relative)
        head.headOnly = true
        let name = String(relative.split(separator: "/").last ?? "")
        do {
            let info = try connection.perform(head, relative) { _ in true }
            return ListedEntry(name: name, kind: .file, size: info.size ?? 0, modified: info.modified ?? 0)
        } catch where error.kind == .notFound {
            return ListedEntry(name: name, kind: .directory, size: 0, modified: 0)
        } catch {
            throw connection.storageError(error)
        }
    }

    /// From the parent's listing, so size and time match what the cache keys the bytes by.
    func item(_ path: String) throws(StorageError) -> RemoteItem {
        try ShareListing.item(path, account: connection.account) { folder throws(StorageError) in try list(folder) }
    }

    func source(for item: RemoteItem) -> any RemoteSource { CurlShareSource(share: connection, item: item) }
}

/// `type "ftp"`: `url "ftp://host/path"` or `ftps://` (TLS required), with `user` and
/// `password_file`, or anonymous without a user.
struct FTPProviderPlugin: CloudProviderPlugin {
    let type = "ftp"
    let schemes = ["ftp", "ftps"]
    let requiredSettings = ["url"]
    let accepts = ["user", "root"]

    func signIn(_ settings: [String: String]) -> SignInMethod { configuredUser(settings) != nil ? .password : .none }
    func configuredUser(_ settings: [String: String]) -> String? { settings["user"] ?? ShareURL(settings["url"] ?? "")?.user }

    func secretFile(_ settings: [String: String]) -> (setting: String, suffix: String)? {
        configuredUser(settings) != nil ? ("password_file", "password") : nil
    }

    func verify(password: String, _ settings: [String: String]) throws(StorageError) {
        let share = try ShareSettings.url(settings, scheme: "ftp")
        let connection = CurlShare(account: share.shown, share: share, password: password.isEmpty ? nil : password, hostKey: nil, reload: nil)
        try ShareSettings.checkLogin(FTPProvider(connection))
    }

    func make(_ context: ProviderContext) throws(StorageError) -> any CloudProvider {
        let account = context.account, file = account.settings["password_file"], name = account.name
        let share = try ShareSettings.url(account.settings, scheme: "ftp", root: account.root)
        let password = share.user == nil ? nil : try Secrets.read(file, account: name, kind: "password")
        return FTPProvider(
            CurlShare(account: name, share: share, password: password, hostKey: nil) { try? Secrets.read(file, account: name, kind: "password") })
    }
}
