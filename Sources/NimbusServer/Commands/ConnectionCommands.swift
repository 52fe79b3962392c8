import NimbusModel
import NimbusProtocol
import NimbusSupport

/// Connection settings: ping, close, password, binarylimit, tagtypes, idle, kill.
@CoreActor
enum ConnectionCommands {
    nonisolated static let all: [Command] = [
        Command("ping", .none, arguments: 0...0, handler: ping),
        Command("close", .none, arguments: nil, handler: close),
        Command("kill", .admin, arguments: 0...0, handler: kill),
        Command("password", .none, arguments: 1...1, handler: password),
        Command("binarylimit", .none, arguments: 1...1, handler: binaryLimit),
        Command("tagtypes", .none, arguments: 0...0, unlimited: true, handler: tagTypes),
        Command("protocol", .none, arguments: 0...0, unlimited: true, handler: protocolFeatures),
        Command("idle", .read, arguments: 0...0, unlimited: true, handler: idle),
    ]

    static func ping(_ call: CommandCall, _ out: inout ResponseWriter) throws -> CommandResult { .ok }

    /// Closes without answering (MPD ignores any arguments).
    static func close(_ call: CommandCall, _ out: inout ResponseWriter) throws -> CommandResult { .close }

    static func kill(_ call: CommandCall, _ out: inout ResponseWriter) throws -> CommandResult { .kill }

    /// Wrong passwords answered at once before guessing is slowed down, and the last one
    /// answered before the connection is closed.
    nonisolated static let freePasswordGuesses = 3
    nonisolated static let maximumPasswordGuesses = 10

    /// Beyond MPD, which answers a guess every few microseconds: after three wrong passwords each
    /// further answer waits twice as long as the one before (from a quarter second), and the
    /// tenth closes the connection. A client that knows its password never notices.
    static func password(_ call: CommandCall, _ out: inout ResponseWriter) throws -> CommandResult {
        let client = call.session
        if let granted = call.context.settings.passwords[call[0]] {
            client.permission = granted
            return .ok
        }
        client.wrongPasswords += 1
        let wrong = client.wrongPasswords
        if wrong == freePasswordGuesses + 1 {
            call.context.logger.warning("[\(client.address)] repeated wrong passwords; answers are slowed down")
        }
        guard wrong > freePasswordGuesses else { throw ProtocolError(.password, "incorrect password") }
        if wrong >= maximumPasswordGuesses {
            call.context.logger.warning("[\(client.address)] \(wrong) wrong passwords; closing")
            out.ack(ProtocolError(.password, "incorrect password"), index: 0, command: "password")
            return .close
        }
        let delay = Duration.milliseconds(250 << min(wrong - freePasswordGuesses - 1, 5))
        return .afterDelay(delay) { throw ProtocolError(.password, "incorrect password") }
    }

    static func binaryLimit(_ call: CommandCall, _ out: inout ResponseWriter) throws -> CommandResult {
        let value = try Arguments.unsigned(call[0], max: UInt(call.context.settings.maximumBinaryLimit))
        guard value >= 64 else { throw ProtocolError.argument("Value too small") }
        call.session.binaryLimit = Int(value)
        return .ok
    }

    static func tagTypes(_ call: CommandCall, _ out: inout ResponseWriter) throws -> CommandResult {
        let enabled = call.context.settings.enabledTags
        guard let subcommand = call.arguments.first else {
            for tag in call.session.tagMask.intersection(enabled).tags { out.field("tagtype", literal: tag.staticWireName) }
            return .ok
        }
        let names = call.arguments.dropFirst()
        switch subcommand {
        case "all", "clear":
            guard names.isEmpty else { throw ProtocolError.argument("Too many arguments") }
            call.session.tagMask = subcommand == "all" ? enabled : .none
        case "enable", "disable", "reset":
            // MPD 0.24 empties the mask before it parses `reset`'s names, so a failed reset
            // leaves no tags enabled.
            if subcommand == "reset" { call.session.tagMask = .none }
            guard !names.isEmpty else { throw ProtocolError.argument("Not enough arguments") }
            let tags = try names.map { name throws(ProtocolError) -> TagType in
                guard let tag = TagType(name: name) else { throw .argument("Unknown tag type") }
                return tag
            }
            let mask = TagMask(tags)
            switch subcommand {
            case "enable": call.session.tagMask = call.session.tagMask.union(mask)
            case "disable": call.session.tagMask = call.session.tagMask.subtracting(mask)
            default: call.session.tagMask = mask
            }
        case "available":
            // Every tag the server reports, whatever this client's mask says.
            for tag in enabled.tags { out.field("tagtype", literal: tag.staticWireName) }
        default:
            throw ProtocolError.argument("Unknown sub command")
        }
        return .ok
    }

    /// MPD 0.24's protocol features: a client switches on behaviour that would surprise an
    /// older one (`hide_playlists_in_root`: no `playlist:` records in the root's `lsinfo`).
    static func protocolFeatures(_ call: CommandCall, _ out: inout ResponseWriter) throws -> CommandResult {
        guard let subcommand = call.arguments.first else {
            for feature in ProtocolFeature.allCases where call.session.protocolFeatures.contains(feature) {
                out.field("feature", feature.rawValue)
            }
            return .ok
        }
        let names = call.arguments.dropFirst()
        switch subcommand {
        case "all", "clear", "available":
            guard names.isEmpty else { throw ProtocolError.argument("Too many arguments") }
            if subcommand == "available" {
                for feature in ProtocolFeature.allCases { out.field("feature", feature.rawValue) }
            } else {
                call.session.protocolFeatures = subcommand == "all" ? Set(ProtocolFeature.allCases) : []
            }
        case "enable", "disable":
            guard !names.isEmpty else { throw ProtocolError.argument("Not enough arguments") }
            let features = try names.map { name throws(ProtocolError) -> ProtocolFeature in
                guard let feature = ProtocolFeature.allCases.first(where: { $0.rawValue.lowercased() == name.lowercased() }) else {
                    throw .argument("Unknown protocol feature")
                }
                return feature
            }
            if subcommand == "enable" {
                call.session.protocolFeatures.formUnion(features)
            } else {
                call.session.protocolFeatures.subtract(features)
            }
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
