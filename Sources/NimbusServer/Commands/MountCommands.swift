import NimbusProtocol
import NimbusSupport

/// listmounts, mount, unmount, listneighbors, and Nimbus's listaccounts. Mounts are cloud accounts (`cloud:NAME`) and
/// WebDAV shares by URL; listneighbors is, as in MPD without a neighbor plugin, hidden from
/// `commands` and answers with MPD's error.
@CoreActor
enum MountCommands {
    nonisolated static let all: [Command] = [
        Command("listmounts", .read, arguments: 0...0, handler: listmounts),
        Command("mount", .admin, arguments: 2...2, handler: mount),
        Command("unmount", .admin, arguments: 1...1, handler: unmount),
        Command("listaccounts", .admin, arguments: 0...0, handler: listAccounts),
        Command("listneighbors", .read, arguments: 0...0, available: { _ in false }, handler: listNeighbors),
    ]

    /// MPD's answer without a neighbor plugin (hidden from `commands`, as in MPD).
    static func listNeighbors(_ call: CommandCall, _ out: inout ResponseWriter) throws -> CommandResult {
        throw ProtocolError(.unknown, "No neighbor plugin configured")
    }

    /// Nimbus's own: what `nimbus accounts` shows (MPD clients have no place for it). Admin,
    /// as `config` is: it names the signed-in users. Never a token or a password.
    static func listAccounts(_ call: CommandCall, _ out: inout ResponseWriter) throws -> CommandResult {
        let database = call.context.library?.database
        for account in call.context.mounts?.accounts ?? [] {
            let report = account.report
            out.field("account", account.name)
            out.field("type", account.type)
            out.field("state", report.state.rawValue)
            if let since = report.since { out.field("since", iso8601: since) }
            if let until = report.until { out.field("until", iso8601: until) }
            if let reason = report.reason { out.field("reason", reason) }
            if let user = report.user { out.field("user", user) }
            out.field("songs", String(database?.directory(at: account.name)?.songCount ?? 0))
            out.field("cached", String(account.cachedBytes))
            out.field("pinned", String(account.pinnedBytes))
            if let updated = report.lastUpdate { out.field("updated", iso8601: updated) }
        }
        return .ok
    }

    static func listmounts(_ call: CommandCall, _ out: inout ResponseWriter) throws -> CommandResult {
        out.field("mount", "")
        for mount in call.context.mounts?.mounts ?? [] {
            out.field("mount", mount.name)
            out.field("storage", mount.uri)
        }
        return .ok
    }

    static func mount(_ call: CommandCall, _ out: inout ResponseWriter) throws -> CommandResult {
        guard let control = call.context.mounts else {
            guard !call[0].isEmpty, !call[0].contains("/") else { throw ProtocolError.argument("Bad mount point") }
            throw ProtocolError.argument("Unrecognized storage URI")
        }
        try control.mount(call[0], uri: call[1])
        call.context.idle.emit(.mount)
        return .ok
    }

    static func unmount(_ call: CommandCall, _ out: inout ResponseWriter) throws -> CommandResult {
        guard let control = call.context.mounts else {
            guard !call[0].isEmpty, !call[0].contains("/") else { throw ProtocolError.argument("Bad mount point") }
            throw ProtocolError.argument("Not a mount point")
        }
        try control.unmount(call[0])
        call.context.idle.emit(.mount)
        return .ok
    }

}
