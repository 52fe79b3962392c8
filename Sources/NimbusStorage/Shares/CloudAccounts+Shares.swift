import Foundation
import Glibc
import NimbusSupport

/// Shares mounted by address (`mount nas smb://bob:secret@nas/music`): each becomes an account
/// of its kind that lives as long as the mount. The password in the address goes to a file of
/// its own in the secrets folder (mode 0600) and nowhere else: the mount is remembered, listed
/// and logged by its address without it.
extension CloudAccounts {
    /// The account the address describes, mounted at `name`, its secret files in `secretsDirectory`.
    public func shareAccount(name: String, url: ShareURL, secretsDirectory: String) throws(StorageError) -> Account {
        let type = url.scheme == "ftps" ? "ftp" : url.scheme
        guard let plugin = providers.plugin(forType: type) else { throw StorageError(.io, "no \(url.scheme):// storage") }
        var settings = url.options
        settings["url"] = ShareURL(scheme: url.scheme, user: nil, host: url.host, port: url.port, path: url.path, options: [:]).withoutPassword
        if let user = url.user { settings["user"] = user }
        if let key = url.options["key"] { settings["key_file"] = key }
        if plugin.secretFile(settings) != nil { settings["password_file"] = Self.sharePasswordFile(name, in: secretsDirectory) }
        for file in plugin.stateFiles { settings[file.setting] = secretsDirectory + "/" + name + "." + file.suffix }
        return Account(name: name, type: type, root: "/", settings: settings)
    }

    /// Where a mount's password is kept.
    public static func sharePasswordFile(_ name: String, in directory: String) -> String { directory + "/" + name + ".share-password" }

    /// Checks the address's login and path with the server (blocking: one connection).
    public func verifyShare(_ account: Account, password: String?) throws(StorageError) {
        guard let plugin = providers.plugin(forType: account.type) else { throw StorageError(.io, "no \(account.type) storage") }
        try plugin.verify(password: password ?? "", account.settings)
    }

    /// Saves a mount's password where only its account reads it.
    public static func saveSharePassword(_ password: String, to path: String) throws(StorageError) {
        try? FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        do {
            try AtomicFile.write(Array((password + "\n").utf8), to: path, mode: 0o600)
        } catch {
            throw StorageError(.io, "cannot save the password: \(error)")
        }
    }

    /// The storage of a mounted share; its health shows in `status` like an account's.
    public func shareStorage(_ account: Account) throws(StorageError) -> CloudStorage {
        guard let plugin = providers.plugin(forType: account.type) else { throw StorageError(.io, "no \(account.type) storage") }
        let health = AccountHealth(path: nil)
        let provider = try plugin.make(ProviderContext(account: account, pool: pool, health: health, tokens: nil))
        return CloudStorage(account: account.name, provider: provider, cache: cache, stateDirectory: stateDirectory, logger: logger, health: health)
    }
}
