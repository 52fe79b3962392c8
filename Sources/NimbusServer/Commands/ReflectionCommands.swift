import NimbusProtocol
import NimbusSupport

/// What the server can do: commands, notcommands, urlhandlers, decoders, config.
@CoreActor
enum ReflectionCommands {
    nonisolated static let all: [Command] = [
        Command("commands", .none, arguments: 0...0, handler: commands),
        Command("notcommands", .none, arguments: 0...0, handler: notCommands),
        Command("urlhandlers", .read, arguments: 0...0, handler: urlHandlers),
        Command("decoders", .read, arguments: 0...0, handler: decoders),
        Command("config", .admin, arguments: 0...0, handler: config),
    ]

    /// Permitted and available commands; `config` is listed for admins even over TCP, as in MPD.
    static func commands(_ call: CommandCall, _ out: inout ResponseWriter) throws -> CommandResult {
        for command in call.context.table.commands
        where command.permits(call.session.permission) && command.isAvailable?(call.context) ?? true {
            out.field("command", command.name)
        }
        return .ok
    }

    /// Commands the permission set forbids (availability plays no part here in MPD).
    static func notCommands(_ call: CommandCall, _ out: inout ResponseWriter) throws -> CommandResult {
        for command in call.context.table.commands where !command.permits(call.session.permission) {
            out.field("command", command.name)
        }
        return .ok
    }

    static func urlHandlers(_ call: CommandCall, _ out: inout ResponseWriter) throws -> CommandResult {
        for scheme in call.context.songs.urlSchemes { out.field("handler", scheme) }
        return .ok
    }

    static func decoders(_ call: CommandCall, _ out: inout ResponseWriter) throws -> CommandResult {
        for plugin in call.context.songs.decoders {
            out.field("plugin", plugin.name)
            for suffix in plugin.suffixes { out.field("suffix", suffix) }
            for mime in plugin.mimeTypes { out.field("mime_type", mime) }
        }
        return .ok
    }

    static func config(_ call: CommandCall, _ out: inout ResponseWriter) throws -> CommandResult {
        guard call.session.isLocal else {
            throw ProtocolError(.permission, "Command only permitted to local clients")
        }
        if let music = call.context.settings.musicDirectory { out.field("music_directory", music) }
        if let playlists = call.context.playlists { out.field("playlist_directory", playlists.directory) }
        // Regular expressions (`=~`, `!~`) work, as with MPD built with PCRE.
        out.field("pcre", 1)
        return .ok
    }
}
