import NimbusModel
import NimbusProtocol
import NimbusSupport

/// Connection settings: ping, close, password, binarylimit, tagtypes, idle, kill.
@CoreActor
enum ConnectionCommands {
    nonisolated static let all: [Command] = [
        Command("ping", .none, arguments: 0...0) { _, _ in .ok },
        Command("close", .none, arguments: nil) { _, _ in .close },
        Command("kill", .admin, arguments: nil) { _, _ in .kill },
        Command("password", .none, arguments: 1...1, handler: password),
        Command("binarylimit", .none, arguments: 1...1, handler: binaryLimit),
        Command("tagtypes", .none, arguments: 0...0, unlimited: true, handler: tagTypes),
        Command("idle", .read, arguments: 0...0, unlimited: true, handler: idle),
    ]

    static func password(_ call: CommandCall, _ out: inout ResponseWriter) throws -> CommandResult {
        guard let granted = call.context.settings.passwords[call[0]] else {
            throw ProtocolError(.password, "incorrect password")
        }
        call.client.permission = granted
        return .ok
    }

    static func binaryLimit(_ call: CommandCall, _ out: inout ResponseWriter) throws -> CommandResult {
        let value = try Arguments.unsigned(call[0], max: UInt(call.context.settings.maximumBinaryLimit))
        guard value >= 64 else { throw ProtocolError.argument("Value too small") }
        call.client.binaryLimit = Int(value)
        return .ok
    }

    static func tagTypes(_ call: CommandCall, _ out: inout ResponseWriter) throws -> CommandResult {
        let enabled = call.context.settings.enabledTags
        guard let subcommand = call.arguments.first else {
            for tag in call.client.tagMask.intersection(enabled).tags { out.field("tagtype", literal: tag.staticWireName) }
            return .ok
        }
        let names = call.arguments.dropFirst()
        switch subcommand {
        case "all", "clear":
            guard names.isEmpty else { throw ProtocolError.argument("Too many arguments") }
            call.client.tagMask = subcommand == "all" ? enabled : .none
        case "enable", "disable":
            guard !names.isEmpty else { throw ProtocolError.argument("Not enough arguments") }
            let tags = try names.map { name throws(ProtocolError) -> TagType in
                guard let tag = TagType(name: name) else { throw .argument("Unknown tag type") }
                return tag
            }
            let mask = TagMask(tags)
            call.client.tagMask = subcommand == "enable" ? call.client.tagMask.union(mask)
                : call.client.tagMask.subtracting(mask)
        default:
            throw ProtocolError.argument("Unknown sub command")
        }
        return .ok
    }

    static func idle(_ call: CommandCall, _ out: inout ResponseWriter) throws -> CommandResult {
        var events: IdleEvents = []
        for name in call.arguments {
            guard let event = IdleEvents(name: name) else {
                throw ProtocolError.argument("Unrecognized idle event: \(name)")
            }
            events.formUnion(event)
        }
        return .idle(events.isEmpty ? .all : events)
    }
}
