import NimbusModel
import NimbusProtocol
import NimbusSupport

/// The phone API's users and keys, managed on the box (MPD has no place for them): who may
/// sign in to `/rest/`, with which MPD permissions, and the OpenSubsonic API keys phones use
/// instead of a password. Admin, as `config` is. A password is masked in the verbose log; a
/// key is answered once, by `subsonickeyadd`, and never again.
@CoreActor
public protocol APIUserControl: AnyObject {
    var users: [(name: String, permissions: Permission, configured: Bool, keys: [(id: String, label: String, created: Int64)])] { get }
    func addUser(_ name: String, password: String, permissions: Permission) throws(APIUserFailure)
    func removeUser(_ name: String) throws(APIUserFailure)
    func addKey(user: String, label: String) throws(APIUserFailure) -> (id: String, key: String)
    func removeKey(_ id: String) throws(APIUserFailure)
}

/// Why a user or key was not added or removed (a sentence for the ACK).
public typealias APIUserFailure = DomainError<APIUsers>
/// The domain of `APIUserFailure`.
public enum APIUsers {}

@CoreActor
enum APIUserCommands {
    nonisolated static let hasUsers: Command.Availability = { $0.apiUsers != nil }
    nonisolated static let all: [Command] = [
        Command("subsonicusers", .admin, arguments: 0...0, available: hasUsers, handler: users),
        Command("subsonicuseradd", .admin, arguments: 2...3, available: hasUsers, handler: addUser),
        Command("subsonicuserdelete", .admin, arguments: 1...1, available: hasUsers, handler: removeUser),
        Command("subsonickeyadd", .admin, arguments: 1...2, available: hasUsers, handler: addKey),
        Command("subsonickeydelete", .admin, arguments: 1...1, available: hasUsers, handler: removeKey),
    ]

    static func control(_ call: CommandCall) throws -> any APIUserControl {
        guard let control = call.context.apiUsers else { throw ProtocolError(.unknown, "The Subsonic API is off") }
        return control
    }

    static func run<T>(_ body: () throws(APIUserFailure) -> T) throws -> T {
        do {
            return try body()
        } catch {
            throw ProtocolError(.argument, error.message)
        }
    }

    static func users(_ call: CommandCall, _ out: inout ResponseWriter) throws -> CommandResult {
        for user in try control(call).users {
            out.field("user", user.name)
            out.field("permissions", user.permissions.names)
            out.field("origin", user.configured ? "config" : "client")
            for key in user.keys {
                out.field("key", key.id)
                out.field("key_label", key.label)
                out.field("key_created", iso8601: key.created)
            }
        }
        return .ok
    }

    static func addUser(_ call: CommandCall, _ out: inout ResponseWriter) throws -> CommandResult {
        var permissions: Permission = [.read, .add]
        if call.arguments.count > 2 {
            do {
                permissions = try Permission(parsing: call[2])
            } catch {
                throw ProtocolError(.argument, error.description)
            }
        }
        let control = try control(call)
        try run { () throws(APIUserFailure) in try control.addUser(call[0], password: call[1], permissions: permissions) }
        return .ok
    }

    static func removeUser(_ call: CommandCall, _ out: inout ResponseWriter) throws -> CommandResult {
        let control = try control(call)
        try run { () throws(APIUserFailure) in try control.removeUser(call[0]) }
        return .ok
    }

    static func addKey(_ call: CommandCall, _ out: inout ResponseWriter) throws -> CommandResult {
        let control = try control(call)
        let label = call.arguments.count > 1 ? call[1] : ""
        let made = try run { () throws(APIUserFailure) in try control.addKey(user: call[0], label: label) }
        out.field("id", made.id)
        out.field("key", made.key)
        return .ok
    }

    static func removeKey(_ call: CommandCall, _ out: inout ResponseWriter) throws -> CommandResult {
        let control = try control(call)
        try run { () throws(APIUserFailure) in try control.removeKey(call[0]) }
        return .ok
    }
}
