import NimbusInput

/// A folder on an SSH server over SFTP, through libcurl (built with libssh2 on Debian): the
/// server's long listing per folder, ranged reads by seeking. The host key is checked against
/// the account's own known_hosts file on every connection (see `HostKeys`).
final class SFTPProvider: CloudProvider {
    let connection: CurlShare

    init(_ connection: CurlShare) { self.connection = connection }

    func reloadCredentials() { connection.reloadCredentials() }

    func list(_ path: String) throws(StorageError) -> [RemoteItem] { try list(path, skipped: { _ in }) }

    func list(_ path: String, skipped: (String) -> Void) throws(StorageError) -> [RemoteItem] {
        let bytes = try connection.data(connection.transfer(path, directory: true), path)
        var items: [RemoteItem] = []
        for line in CurlShare.lines(bytes, account: connection.account, path: path, skipped: skipped) {
            guard let entry = LongListing.parse(line) else { continue }
            if entry.name == "." || entry.name == ".." { continue }
            guard entry.kind != .link else {
                skipped("Skipping \"\(path.isEmpty ? entry.name : path + "/" + entry.name)\" of \(connection.account): symbolic links are not followed over SFTP")
                continue
            }
            items.append(
                ShareListing.item(
                    name: entry.name, path: path.isEmpty ? entry.name : path + "/" + entry.name, directory: entry.kind == .directory,
                    size: entry.size, modified: entry.modified))
            guard items.count <= ShareListing.maximumEntries else { throw ShareListing.tooLarge(connection.account, path) }
        }
        return items
    }

    /// From the parent's listing, so a file's size and time are the same as in every listing
    /// (the cache keys its bytes by them).
    func item(_ path: String) throws(StorageError) -> RemoteItem {
        try ShareListing.item(path, account: connection.account) { folder throws(StorageError) in try list(folder) }
    }

    func source(for item: RemoteItem) -> any RemoteSource { CurlShareSource(share: connection, item: item) }
}

/// `type "sftp"`: `url "sftp://user@host[:port]/path"`, a password (`password_file`) or a
/// private key (`key_file`), and the `fingerprint` of the server's host key the person checked.
struct SFTPProviderPlugin: CloudProviderPlugin {
    let type = "sftp"
    let schemes = ["sftp"]
    let requiredSettings = ["url"]
    let accepts = ["user", "key_file", "fingerprint", "root"]
    let stateFiles = [(setting: "known_hosts_file", suffix: "known_hosts")]

    func signIn(_ settings: [String: String]) -> SignInMethod { settings["key_file"] == nil ? .password : .none }
    func configuredUser(_ settings: [String: String]) -> String? { settings["user"] ?? ShareURL(settings["url"] ?? "")?.user }

    func secretFile(_ settings: [String: String]) -> (setting: String, suffix: String)? {
        settings["key_file"] == nil ? ("password_file", "password") : nil
    }

    func verify(password: String, _ settings: [String: String]) throws(StorageError) {
        let share = try ShareSettings.url(settings, scheme: "sftp")
        try ShareSettings.checkLogin(SFTPProvider(Self.connection(share.shown, share, settings, password: password.isEmpty ? nil : password)))
    }

    /// One connection that stops at the host key: what the server presents, and whether the
    /// account's known_hosts holds it.
    func hostKey(_ settings: [String: String]) throws(StorageError) -> (fingerprint: String, known: Bool)? {
        let share = try ShareSettings.url(settings, scheme: "sftp")
        let known = HostKeys.check(share: share, file: settings["known_hosts_file"], confirmed: nil)
        let probe = HostKeyCheck { _ in false }
        var transfer = FileTransfer(url: share.location("", directory: true))
        transfer.user = share.user
        transfer.password = ""
        transfer.hostKey = probe
        do {
            try FileTransferSession().perform(transfer) { _ in false }
        } catch where error.kind == .hostKey {
        } catch {
            throw StorageError(.io, "\(share.authority): \(error.message)")
        }
        guard let key = probe.seen else { throw StorageError(.io, "\(share.authority): the server showed no host key") }
        return (HostKeys.fingerprint(key), known.accepts(key))
    }

    static func connection(_ account: String, _ share: ShareURL, _ settings: [String: String], password: String?, reload: (@Sendable () -> String?)? = nil)
        -> CurlShare
    {
        let hostKey = HostKeys.check(share: share, file: settings["known_hosts_file"], confirmed: settings["fingerprint"])
        return CurlShare(account: account, share: share, password: password, hostKey: hostKey, reload: reload)
    }

    func make(_ context: ProviderContext) throws(StorageError) -> any CloudProvider {
        let account = context.account, file = account.settings["password_file"], name = account.name
        let share = try ShareSettings.url(account.settings, scheme: "sftp", root: account.root)
        guard share.user != nil else { throw StorageError(.io, "\(name): an sftp account needs a user") }
        let password = account.settings["key_file"] == nil ? try Secrets.read(file, account: name, kind: "password") : nil
        return SFTPProvider(
            Self.connection(name, share, account.settings, password: password) { try? Secrets.read(file, account: name, kind: "password") })
    }
}
