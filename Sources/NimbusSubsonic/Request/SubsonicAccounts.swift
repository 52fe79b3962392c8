import Foundation
import NimbusModel
import NimbusSupport
import Synchronization

/// The API's users and keys: the `subsonic_user { }` blocks, plus users and OpenSubsonic API
/// keys added at run time (by the MPD-port commands the page and `nimbus` use), kept in a
/// 0600 file in the state directory written atomically. A key is shown once, when made;
/// only its hash is kept. A configured user cannot be removed at run time (the config
/// would bring it back); a run-time user of the same name as a configured one cannot be made.
public final class SubsonicAccounts: Sendable {
    public struct Listing: Sendable, Equatable {
        public let name: String
        public let permissions: Permission
        public let configured: Bool
        public let keys: [(id: String, label: String, created: Int64)]

        public static func == (a: Listing, b: Listing) -> Bool {
            a.name == b.name && a.permissions == b.permissions && a.configured == b.configured && a.keys.map(\.id) == b.keys.map(\.id)
        }
    }

    public typealias Failure = DomainError<SubsonicAccounts>

    struct Stored: Codable {
        struct User: Codable { var name: String, password: String, permissions: String }
        struct Key: Codable { var id: String, hash: String, user: String, label: String, created: Int64 }
        var users: [User] = []
        var keys: [Key] = []
    }

    private let configured: [SubsonicUser]
    private let file: String?
    private let stored: Mutex<Stored>
    public let signIn: SubsonicSignIn

    /// `file`: where run-time users and keys live (nil: nowhere, for tests). A damaged file is
    /// left as it is, logged, and the daemon starts with the configured users only.
    public init(configured: [SubsonicUser], file: String?, logger: Logger) {
        self.configured = configured
        self.file = file
        var loaded = Stored()
        if let file {
            do {
                if let bytes = try AtomicFile.read(file) { loaded = try JSONDecoder().decode(Stored.self, from: Data(bytes)) }
            } catch {
                logger.error("Subsonic users file \(file) cannot be read (\(error)); only the configured users can sign in")
            }
        }
        stored = Mutex(loaded)
        signIn = SubsonicSignIn(users: [])
        publish(loaded)
    }

    private func users(_ stored: Stored) -> [SubsonicUser] {
        configured
            + stored.users.filter { user in !configured.contains { $0.name == user.name } }.map {
                SubsonicUser(name: $0.name, password: $0.password, permissions: (try? Permission(parsing: $0.permissions)) ?? [.read])
            }
    }

    private func publish(_ stored: Stored) {
        let users = users(stored)
        signIn.replaceUsers(users)
        signIn.replaceKeys(stored.keys.filter { key in users.contains { $0.name == key.user } }.map { ($0.hash, $0.user) })
    }

    public var listing: [Listing] {
        let stored = stored.withLock { $0 }
        return users(stored).map { user in
            Listing(
                name: user.name, permissions: user.permissions, configured: configured.contains { $0.name == user.name },
                keys: stored.keys.filter { $0.user == user.name }.map { ($0.id, $0.label, $0.created) })
        }
    }

    public func addUser(_ name: String, password: String, permissions: Permission) throws(Failure) {
        guard !name.isEmpty, name.utf8.count <= 128, !name.contains(where: \.isNewline) else { throw Failure("Invalid user name") }
        guard !password.isEmpty, password.utf8.count <= 1024 else { throw Failure("Invalid password") }
        guard !configured.contains(where: { $0.name == name }) else { throw Failure("User \"\(name)\" is in the config file") }
        try change { stored throws(Failure) in
            stored.users.removeAll { $0.name == name }
            stored.users.append(.init(name: name, password: password, permissions: permissions.names))
        }
    }

    public func removeUser(_ name: String) throws(Failure) {
        guard !configured.contains(where: { $0.name == name }) else {
            throw Failure("User \"\(name)\" is in the config file; remove it there")
        }
        try change { stored throws(Failure) in
            guard stored.users.contains(where: { $0.name == name }) else { throw Failure("No such user") }
            stored.users.removeAll { $0.name == name }
            stored.keys.removeAll { $0.user == name }
        }
    }

    /// Makes a key for `user`: its id (to revoke it) and the key itself, shown only now.
    public func addKey(user: String, label: String) throws(Failure) -> (id: String, key: String) {
        guard users(stored.withLock { $0 }).contains(where: { $0.name == user }) else { throw Failure("No such user") }
        var generator = SystemRandomNumberGenerator()
        let key = (0..<32).map { _ in String(format: "%02x", UInt8.random(in: 0...255, using: &generator)) }.joined()
        let hash = SubsonicSignIn.keyHash(key)
        let id = String(hash.prefix(12))
        try change { stored throws(Failure) in
            guard stored.keys.count < 1000 else { throw Failure("Too many keys") }
            stored.keys.append(.init(id: id, hash: hash, user: user, label: String(label.prefix(128)), created: Int64(Date().timeIntervalSince1970)))
        }
        return (id, key)
    }

    public func removeKey(_ id: String) throws(Failure) {
        try change { stored throws(Failure) in
            guard stored.keys.contains(where: { $0.id == id }) else { throw Failure("No such key") }
            stored.keys.removeAll { $0.id == id }
        }
    }

    /// Applies a change, writes the file (0600, atomically) and only then makes it count.
    private func change(_ body: (inout Stored) throws(Failure) -> Void) throws(Failure) {
        try stored.withLock { (stored: inout Stored) throws(Failure) in
            var next = stored
            try body(&next)
            if let file {
                let encoder = JSONEncoder()
                encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
                do {
                    let data = try encoder.encode(next)
                    try AtomicFile.write(Array(data), to: file, mode: 0o600)
                } catch {
                    throw Failure("Cannot save the users file: \(error)")
                }
            }
            stored = next
            publish(next)
        }
    }
}
