import NimbusProtocol
import NimbusSupport

/// listmounts, mount, unmount and listneighbors. Until cloud storages are mounted here the
/// answers are MPD's for a daemon whose only storage is the music directory; listneighbors is,
/// as in MPD without a neighbor plugin, hidden from `commands` and answers with MPD's error.
@CoreActor
enum MountCommands {
    nonisolated static let all: [Command] = [
        Command("listmounts", .read, arguments: 0...0) { _, out in
            out.field("mount", "")
            return .ok
        },
        Command("mount", .admin, arguments: 2...2) { call, _ in
            guard !call[0].isEmpty, !call[0].hasPrefix("/") else { throw ProtocolError.argument("Bad mount point") }
            throw ProtocolError.argument("Unrecognized storage URI")
        },
        Command("unmount", .admin, arguments: 1...1) { call, _ in
            guard !call[0].isEmpty, !call[0].hasPrefix("/") else { throw ProtocolError.argument("Bad mount point") }
            throw ProtocolError.argument("Not a mount point")
        },
        Command("listneighbors", .read, arguments: 0...0, available: { _ in false }) { _, _ in
            throw ProtocolError(.unknown, "No neighbor plugin configured")
        },
    ]
}
