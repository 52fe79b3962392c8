import Foundation
import NimbusSupport

/// The accounts clients added with `addaccount`, in one JSON file beside the state file,
/// replaced atomically and readable by the daemon's user alone (it names the app's
/// `client_id` and `client_secret`; tokens and passwords live in their own files). A file that
/// cannot be read as such is moved aside as `FILE.damaged` and reported, never overwritten.
public struct RuntimeAccountFile: Sendable {
    private struct Saved: Codable {
        struct Entry: Codable {
            var name: String
            var type: String
            var root: String
            var settings: [String: String]
        }

        var version = 1
        var accounts: [Entry]
    }

    public let path: String
    private let logger: Logger

    public init(path: String, logger: Logger) {
        self.path = path
        self.logger = logger
    }

    public func load() -> [CloudAccounts.Account] {
        let bytes: [UInt8]
        do {
            guard let read = try AtomicFile.read(path) else { return [] }
            bytes = read
        } catch {
            logger.error("cannot read \(path): \(error.description); accounts added at run time are not loaded")
            return []
        }
        guard let saved = try? JSONDecoder().decode(Saved.self, from: Data(bytes)), saved.version == 1 else {
            let aside = path + ".damaged"
            if rename(path, aside) == 0 {
                logger.error("\(path) is damaged; moved aside to \(aside): the accounts in it must be added again")
            } else {
                logger.error("\(path) is damaged and cannot be moved aside: \(String(cString: strerror(errno)))")
            }
            return []
        }
        return saved.accounts.map { CloudAccounts.Account(name: $0.name, type: $0.type, root: $0.root, settings: $0.settings) }
    }

    public func save(_ accounts: [CloudAccounts.Account]) throws(SystemError) {
        let saved = Saved(accounts: accounts.map { .init(name: $0.name, type: $0.type, root: $0.root, settings: $0.settings) })
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted]
        let data = (try? encoder.encode(saved)) ?? Data()
        try AtomicFile.write(Array(data), to: path, mode: 0o600)
    }
}
