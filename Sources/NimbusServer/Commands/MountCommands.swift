import NimbusProtocol
import NimbusSupport

/// listmounts, mount, unmount, listneighbors. Mounts are cloud accounts (`cloud:NAME`) and
/// WebDAV shares by URL; listneighbors is, as in MPD without a neighbor plugin, hidden from
/// `commands` and answers with MPD's error.
@CoreActor
enum MountCommands {
    nonisolated static let all: [Command] = [
        Command("listmounts", .read, arguments: 0...0, handler: listmounts),
        Command("mount", .admin, arguments: 2...2, handler: mount),
        Command("unmount", .admin, arguments: 1...1, handler: unmount),
        // Hidden from `commands` without a way to look (as in MPD without a neighbor plugin).
        Command("listneighbors", .read, arguments: 0...0, available: { $0.mounts?.neighborSearch != nil }, handler: listNeighbors),
    ]

    /// Shares announced on the LAN by multicast DNS, in MPD's format (`neighbor:`, `name:`);
    /// without the daemon's mounts, MPD's answer without a neighbor plugin.
    static func listNeighbors(_ call: CommandCall, _ out: inout ResponseWriter) throws -> CommandResult {
        guard let search = call.context.mounts?.neighborSearch else { throw ProtocolError(.unknown, "No neighbor plugin configured") }
        return .offLoop {
            var out = ResponseWriter()
            for neighbor in search() {
                out.field("neighbor", neighbor.uri)
                out.field("name", neighbor.name)
            }
            return out
        }
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
        let name = call[0], uri = call[1], idle = call.context.idle
        guard let check = try control.check(name, uri: uri) else {
            try control.mount(name, uri: uri)
            idle.emit(.mount)
            return .ok
        }
        return .deferred {
            do throws(MountFailure) {
                try check()
            } catch {
                throw ErrorMapping.protocolError(for: error)
            }
            return {
                try control.mount(name, uri: uri)
                idle.emit(.mount)
                return ResponseWriter()
            }
        }
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
