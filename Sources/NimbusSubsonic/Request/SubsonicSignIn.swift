import Foundation
import NimbusModel
import NimbusSupport
import Synchronization

/// One person who may use the API: a `subsonic_user { }` block, or one added at run time.
public struct SubsonicUser: Sendable, Equatable {
    public var name: String
    /// Kept as given: the token sign-in (`md5(password + salt)`) needs the password itself.
    public var password: String
    public var permissions: Permission

    public init(name: String, password: String, permissions: Permission = [.read, .add]) {
        self.name = name
        self.password = password
        self.permissions = permissions
    }
}

/// Who a request is: its credentials checked as the specification says — `u` with `p`
/// (plain or `enc:` hex) or with `t` and `s`, or `apiKey` alone — comparisons in constant
/// time, and repeated failures from one address answered ever later, as on the MPD port.
public final class SubsonicSignIn: Sendable {
    private let state: Mutex<(users: [SubsonicUser], keys: [(hash: String, user: String)], failures: [String: (count: Int, last: Date)])>

    public init(users: [SubsonicUser], keys: [(hash: String, user: String)] = []) {
        state = Mutex((users, keys, [:]))
    }

    public var users: [SubsonicUser] { state.withLock { $0.users } }
    public func replaceUsers(_ users: [SubsonicUser]) { state.withLock { $0.users = users } }
    public func replaceKeys(_ keys: [(hash: String, user: String)]) { state.withLock { $0.keys = keys } }

    /// How long to hold the answer to a request from `peer` before checking it: nothing for
    /// the first three failures, then 0.5 s doubling to 8 s.
    public func delay(for peer: String) -> Double {
        state.withLock { state in
            guard let failure = state.failures[peer], failure.count > 3 else { return 0 }
            if Date().timeIntervalSince(failure.last) > 600 {
                state.failures[peer] = nil
                return 0
            }
            return min(8, 0.5 * pow(2, Double(failure.count - 4)))
        }
    }

    /// The user the arguments sign in as, or the specification's error.
    public func check(_ arguments: SubsonicArguments, peer: String) throws(SubsonicError) -> SubsonicUser {
        do {
            let user = try verify(arguments)
            state.withLock { _ = $0.failures.removeValue(forKey: peer) }
            return user
        } catch {
            if error.code == 40 || error.code == 44 {
                state.withLock { state in
                    let count = (state.failures[peer]?.count ?? 0) + 1
                    state.failures[peer] = (count, Date())
                    if state.failures.count > 4096 { state.failures = state.failures.filter { Date().timeIntervalSince($0.value.last) < 600 } }
                }
            }
            throw error
        }
    }

    private func verify(_ arguments: SubsonicArguments) throws(SubsonicError) -> SubsonicUser {
        let (users, keys) = state.withLock { ($0.users, $0.keys) }
        if let key = try arguments.optional("apiKey") {
            guard try arguments.optional("u") == nil else {
                throw SubsonicError(43, "Multiple conflicting authentication mechanisms provided")
            }
            let hash = Self.keyHash(key)
            var found: String?
            for entry in keys where Self.equal(entry.hash, hash) { found = entry.user }
            guard let name = found, let user = users.first(where: { $0.name == name }) else { throw SubsonicError(44, "Invalid API key") }
            return user
        }
        guard let name = try arguments.optional("u"), !name.isEmpty else { throw .missing("u") }
        let password = try arguments.optional("p")
        let token = try arguments.optional("t")
        if password != nil, token != nil { throw SubsonicError(43, "Multiple conflicting authentication mechanisms provided") }
        // Every user is looked at, so the time does not tell whether the name exists.
        var matched: SubsonicUser?
        for user in users {
            var ok = Self.equal(user.name, name)
            if let password {
                ok = Self.equal(user.password, Self.plain(password)) && ok
            } else if let token {
                guard let salt = try arguments.optional("s"), !salt.isEmpty else { throw .missing("s") }
                ok = Self.equal(MD5.hex(Array((user.password + salt).utf8)), token.lowercased()) && ok
            } else {
                throw .missing("p")
            }
            if ok { matched = user }
        }
        guard let matched else { throw .wrongCredentials }
        return matched
    }

    /// `enc:` is hex of the UTF-8 password (an obfuscation, not a secret).
    static func plain(_ password: String) -> String {
        guard password.hasPrefix("enc:") else { return password }
        let hex = Array(password.utf8.dropFirst(4))
        guard hex.count % 2 == 0 else { return password }
        var bytes: [UInt8] = []
        for index in stride(from: 0, to: hex.count, by: 2) {
            guard let byte = UInt8(String(decoding: hex[index...index + 1], as: UTF8.self), radix: 16) else { return password }
            bytes.append(byte)
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// What is kept of an API key: never the key itself.
    public static func keyHash(_ key: String) -> String { MD5.hex(Array(("nimbus-api-key\u{0}" + key).utf8)) }

    /// Compares without stopping at the first difference.
    static func equal(_ left: String, _ right: String) -> Bool {
        let a = Array(left.utf8), b = Array(right.utf8)
        var difference = UInt8(truncatingIfNeeded: a.count ^ b.count)
        for index in 0..<max(a.count, b.count) {
            difference |= (index < a.count ? a[index] : 0) ^ (index < b.count ? b[index] : 0)
        }
        return difference == 0
    }
}
