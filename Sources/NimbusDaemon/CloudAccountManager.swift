import Foundation
import Glibc
import NimbusLibrary
import NimbusModel
import NimbusOffline
import NimbusServer
import NimbusStorage
import NimbusSupport

/// Accounts at run time: what `addaccount`, `removeaccount`, `signin` and `signout` change
/// across the services an account touches — the cloud accounts, the mounts and the library,
/// the offline pins, the range cache and the files on disk — and the file that keeps the
/// accounts clients added. A sign-in finishing on its flow's thread comes back here on the
/// core loop: the account is mounted (or takes the new secret), updated, and clients idling
/// on `account` hear of it.
@CoreActor
final class CloudAccountManager: AccountControl {
    private let cloud: CloudAccounts
    private let mounts: Mounts
    private let library: MusicLibrary
    private let offline: OfflineDownloads
    private let file: RuntimeAccountFile
    private let secretsDirectory: String
    private let logger: Logger
    private let emit: @CoreActor (IdleEvents) -> Void
    nonisolated let flows: SignInFlows

    /// The longest account name: it becomes a folder name and a file name.
    static let maximumName = 64

    init(
        cloud: CloudAccounts, mounts: Mounts, library: MusicLibrary, offline: OfflineDownloads, file: RuntimeAccountFile,
        secretsDirectory: String, logger: Logger, emit: @escaping @CoreActor (IdleEvents) -> Void
    ) {
        self.cloud = cloud
        self.mounts = mounts
        self.library = library
        self.offline = offline
        self.file = file
        self.secretsDirectory = secretsDirectory
        self.logger = logger
        self.emit = emit
        let relay = Relay()
        flows = SignInFlows(logger: logger) { account in
            Task { @CoreActor in relay.manager?.flowChanged(account) }
        }
        relay.manager = self
    }

    /// Weak, so a flow's thread outliving an in-process daemon finds nothing to call.
    private final class Relay: @unchecked Sendable {
        weak var manager: CloudAccountManager?
    }

    var types: [AccountType] { cloud.providers.types }

    var listing: [AccountListing] {
        cloud.summaries.map { summary in
            let (word, problem) = signInWord(summary)
            return AccountListing(summary: summary, signIn: word, signInProblem: problem)
        }
    }

    private func signInWord(_ summary: AccountSummary) -> (String, String?) {
        switch flows.progress(summary.name) {
        case .waiting?: return ("waiting", nil)
        case .expired?: return ("expired", nil)
        case .declined?: return ("declined", nil)
        case .cancelled? where summary.report.state == .signInNeeded: return ("cancelled", nil)
        case .failed(let why)? where summary.report.state == .signInNeeded: return ("failed", why)
        default: break
        }
        if summary.refreshRefused { return ("refresh refused", nil) }
        if summary.report.state == .signInNeeded { return ("needed", nil) }
        guard let account = cloud.account(summary.name), let plugin = cloud.providers.plugin(forType: account.type) else { return ("needed", nil) }
        if case .none = plugin.signIn(account.settings) { return ("not needed", nil) }
        return ("signed in", nil)
    }

    func add(_ name: String, type: String, settings: [(key: String, value: String)]) throws(AccountFailure) {
        try Self.check(name)
        guard cloud.account(name) == nil, !mounts.isTaken(name) else { throw .nameTaken(name) }
        let account: CloudAccounts.Account
        do throws(AccountSettingsError) {
            account = try cloud.providers.runtimeAccount(name: name, type: type, settings: settings, secretsDirectory: secretsDirectory)
        } catch {
            throw .invalid(error.message)
        }
        guard cloud.add(account, atRunTime: true) else { throw .nameTaken(name) }
        do {
            try file.save(cloud.addedAtRunTime)
        } catch {
            cloud.remove(name)
            throw .cannotSave("cannot save \(file.path): \(error.description)")
        }
        logger.notice("account \"\(name)\" (\(type)) added")
        if account.settings["mount"].map({ !["no", "false", "0"].contains($0) }) ?? true { mounts.addAccount(name) }
    }

    func remove(_ name: String) throws(AccountFailure) {
        guard let account = cloud.account(name) else { throw .noSuchAccount(name) }
        guard cloud.isAddedAtRunTime(name) else { throw .configured(name) }
        flows.forget(name)
        for pin in offline.pins where pin.kind != .playlist && (pin.name == name || pin.name.hasPrefix(name + "/")) {
            try? offline.remove(pin.id)
        }
        mounts.removeAccount(name)
        removeSecret(account)
        // What the daemon placed beside the secret (an SFTP account's known_hosts) goes with it.
        for file in cloud.providers.plugin(forType: account.type)?.stateFiles ?? [] {
            if let path = account.settings[file.setting] { unlink(path) }
        }
        cloud.remove(name)
        do {
            try file.save(cloud.addedAtRunTime)
        } catch {
            logger.error("cannot save \(file.path): \(error.description)")
        }
        logger.notice("account \"\(name)\" removed")
    }

    func signOut(_ name: String) throws(AccountFailure) {
        guard let account = cloud.account(name) else { throw .noSuchAccount(name) }
        flows.forget(name)
        removeSecret(account)
        cloud.existingStorage(name)?.reloadCredentials()
        offline.accountsChanged()
        logger.notice("account \"\(name)\" signed out")
    }

    func signInRequest(_ name: String, redirect: String?) throws(AccountFailure) -> SignInRequest {
        guard cloud.account(name) != nil else { throw .noSuchAccount(name) }
        guard let request = cloud.signInRequest(name, redirect: redirect) else { throw .invalid("\(name) needs no sign-in") }
        return request
    }

    func cancelSignIn(_ name: String) throws(AccountFailure) {
        guard cloud.account(name) != nil else { throw .noSuchAccount(name) }
        flows.cancel(name)
    }

    /// A flow moved on: signed in, the account is mounted (or reads its new secret) and read.
    private func flowChanged(_ name: String) {
        if flows.progress(name) == .signedIn, cloud.account(name) != nil {
            cloud.existingStorage(name)?.reloadCredentials()
            mounts.retryAccount(name)
            _ = try? library.update(name)
            offline.accountsChanged()
        }
        emit(.account)
    }

    private func removeSecret(_ account: CloudAccounts.Account) {
        guard let plugin = cloud.providers.plugin(forType: account.type), let secret = plugin.secretFile(account.settings),
            let path = account.settings[secret.setting]
        else { return }
        if unlink(path) != 0, errno != ENOENT { logger.error("cannot remove \(path): \(String(cString: strerror(errno)))") }
    }

    /// A name that becomes a library folder and a file name: one path segment of printable
    /// characters, not `.` or `..`, not hidden, at most 64 bytes.
    static func check(_ name: String) throws(AccountFailure) {
        guard !name.isEmpty else { throw .badName("empty") }
        guard name.utf8.count <= maximumName else { throw .badName("longer than \(maximumName) bytes") }
        guard !name.contains("/"), !name.hasPrefix("."), StoragePath.isSafe(name) else { throw .badName("\"\(name)\" is not one folder name") }
        guard !name.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) else {
            throw .badName("control characters")
        }
    }
}
