import NimbusModel
import Foundation
import NimbusLibrary
import NimbusServer
import NimbusStorage
import NimbusSupport
import NimbusZeroconf

/// The daemon's mounts: configured cloud accounts at their names, and whatever clients mount
/// with `mount NAME cloud:ACCOUNT` or `mount NAME https://host/dav/`. Mounts made by clients
/// are remembered in a small file beside the state file (never with a secret: a URI names an
/// account or a public share).
@CoreActor
final class Mounts: MountControl {
    private let storage: MountedStorage
    private let cloud: CloudAccounts
    private let library: MusicLibrary
    private let path: String
    /// Where the passwords of shares mounted by address are kept.
    private let secretsDirectory: String
    private nonisolated let multicast: Bool
    private let logger: Logger
    private(set) var mounts: [(name: String, uri: String)] = []
    /// Configured accounts that could not be mounted at start.
    private var pending: Set<String> = []

    init(
        storage: MountedStorage, cloud: CloudAccounts, library: MusicLibrary, path: String, secretsDirectory: String, multicast: Bool,
        logger: Logger
    ) {
        self.multicast = multicast
        self.secretsDirectory = secretsDirectory
        self.storage = storage
        self.cloud = cloud
        self.library = library
        self.path = path
        self.logger = logger
    }

    /// Mounts the accounts configured to be mounted and the mounts saved last time.
    func restore(accounts: [String]) {
        for name in accounts where !attach(name, uri: "cloud:" + name) { pending.insert(name) }
        guard let bytes = (try? AtomicFile.read(path)) ?? nil else { return }
        for line in String(decoding: bytes, as: UTF8.self).split(separator: "\n") {
            let parts = line.split(separator: "\t", maxSplits: 1).map(String.init)
            guard parts.count == 2, storage.mounted(parts[0]) == nil else { continue }
            attach(parts[0], uri: parts[1])
        }
    }

    func check(_ name: String, uri: String) throws(MountFailure) -> (@Sendable () throws(MountFailure) -> Void)? {
        try checkFree(name, uri: uri)
        guard let share = ShareURL(uri) else { return nil }
        let account: CloudAccounts.Account
        do {
            account = try cloud.shareAccount(name: name, url: share, secretsDirectory: secretsDirectory)
        } catch {
            throw .failed(error.message)
        }
        let cloud = cloud, password = share.password
        return { () throws(MountFailure) in
            do throws(StorageError) {
                try cloud.verifyShare(account, password: password)
            } catch {
                switch error.kind {
                case .permission: throw .refused(error.message)
                case .notFound, .notADirectory: throw .missing(error.message)
                default: throw .failed(error.message)
                }
            }
        }
    }

    private func checkFree(_ name: String, uri: String) throws(MountFailure) {
        guard !name.isEmpty, !name.contains("/"), StoragePath.isSafe(name) else { throw .badMountPoint }
        guard storage.mounted(name) == nil else { throw .busy }
        let shown = ShareURL(uri)?.withoutPassword ?? uri
        guard !mounts.contains(where: { $0.uri == shown }) else { throw .alreadyMounted }
    }

    func mount(_ name: String, uri given: String) throws(MountFailure) {
        try checkFree(name, uri: given)
        var uri = given
        if let share = ShareURL(given) {
            // The password leaves the address here: kept in a file of its own, never listed or saved with the mount.
            uri = share.withoutPassword
            let file = CloudAccounts.sharePasswordFile(name, in: secretsDirectory)
            do {
                if let password = share.password { try CloudAccounts.saveSharePassword(password, to: file) } else { unlink(file) }
            } catch {
                throw .failed(error.message)
            }
        }
        guard let mounted = make(name, uri: uri) else {
            let scheme = uri.split(separator: ":", maxSplits: 1).first.map { $0.lowercased() } ?? ""
            if Self.pluginsMPDHas.contains(scheme) { throw .unsupported(scheme: scheme) }
            throw .unrecognized
        }
        storage.mount(name, mounted)
        mounts.append((name, uri))
        save()
        _ = try? library.update(name)
    }

    func unmount(_ name: String) throws(MountFailure) {
        guard !name.isEmpty, !name.contains("/") else { throw .badMountPoint }
        guard storage.unmount(name) != nil else { throw .notMountPoint }
        if let uri = mounts.first(where: { $0.name == name })?.uri, let share = ShareURL(uri) {
            unlink(CloudAccounts.sharePasswordFile(name, in: secretsDirectory))
            if share.scheme == "sftp" { unlink(secretsDirectory + "/" + name + ".known_hosts") }
        }
        mounts.removeAll { $0.name == name }
        save()
        _ = try? library.update(name)
    }

    /// Storage URI schemes of MPD's other storage plugins: named in the error so a user moving
    /// from MPD learns what to use instead.
    private static let pluginsMPDHas: Set<String> = ["udisks"]

    /// Multicast DNS, when the config allows multicast (`zeroconf_enabled`).
    nonisolated var neighborSearch: (@Sendable () -> [(uri: String, name: String)])? {
        guard multicast else { return nil }
        return { ShareBrowser.browse().map { ($0.uri, $0.name) } }
    }

    func retryAccount(_ name: String) {
        guard pending.contains(name), storage.mounted(name) == nil, attach(name, uri: "cloud:" + name) else { return }
        pending.remove(name)
        logger.info("mounted \"\(name)\"")
    }

    /// A client added an account: mounted now if it can be (else when it is signed in).
    func addAccount(_ name: String) {
        if !attach(name, uri: "cloud:" + name) { pending.insert(name) }
        save()
    }

    /// A client removed an account: unmounted (its songs leave the database).
    func removeAccount(_ name: String) {
        pending.remove(name)
        storage.unmount(name)
        mounts.removeAll { $0.uri == "cloud:" + name }
        save()
        _ = try? library.update(name)
    }

    /// Whether a mount, a pending account or a folder of the music directory has this name.
    func isTaken(_ name: String) -> Bool {
        storage.mounted(name) != nil || pending.contains(name) || mounts.contains { $0.name == name }
            || library.database.directory(at: name) != nil
    }

    @discardableResult
    private func attach(_ name: String, uri: String) -> Bool {
        guard let mounted = make(name, uri: uri) else {
            logger.error("cannot mount \(uri) at \"\(name)\"")
            return false
        }
        storage.mount(name, mounted)
        mounts.append((name, uri))
        return true
    }

    private func make(_ name: String, uri: String) -> CloudStorage? {
        if uri.hasPrefix("cloud:") {
            do {
                return try cloud.storage(String(uri.dropFirst("cloud:".count)))
            } catch {
                logger.error(error.message)
                return nil
            }
        }
        if let share = ShareURL(uri) {
            do {
                return try cloud.shareStorage(cloud.shareAccount(name: name, url: share, secretsDirectory: secretsDirectory))
            } catch {
                logger.error("\(share.shown): \(error.message)")
                return nil
            }
        }
        let lowered = uri.lowercased()
        guard lowered.hasPrefix("http://") || lowered.hasPrefix("https://") else { return nil }
        return cloud.webDAV(url: uri, name: name)
    }

    /// Client mounts only (configured accounts come from the config).
    private func save() {
        let text = mounts.filter { !($0.uri.hasPrefix("cloud:") && $0.uri.dropFirst(6) == $0.name) }
            .map { $0.name + "\t" + $0.uri + "\n" }.joined()
        do {
            try AtomicFile.write(Array(text.utf8), to: path)
        } catch {
            logger.error("Failed to save mounts: \(error)")
        }
    }
}
