import NimbusCore
import NimbusProtocol
import NimbusQueue
import NimbusSupport

/// The per-partition options and the volume.
@CoreActor
enum OptionCommands {
    nonisolated static let all: [Command] = [
        Command("random", .player, arguments: 1...1, handler: random),
        Command("repeat", .player, arguments: 1...1, handler: repeatMode),
        Command("single", .player, arguments: 1...1, handler: single),
        Command("consume", .player, arguments: 1...1, handler: consumeMode),
        Command("crossfade", .player, arguments: 1...1, handler: crossfade),
        Command("mixrampdb", .player, arguments: 1...1, handler: mixrampdb),
        Command("mixrampdelay", .player, arguments: 1...1, handler: mixrampdelay),
        Command("replay_gain_mode", .player, arguments: 1...1, handler: replayGainMode),
        Command("replay_gain_status", .read, arguments: 0...0, handler: replayGainStatus),
        Command("setvol", .player, arguments: 1...1, handler: setvol),
        Command("volume", .player, arguments: 1...1, handler: volume),
        Command("getvol", .read, arguments: 0...0, handler: getvol),
    ]

    private static func setVolume(_ partition: Partition, _ level: Int, missingMixerCode: AckCode) throws {
        do {
            try partition.outputs.setVolume(level)
        } catch .noMixer {
            throw ProtocolError(missingMixerCode, "No mixer")
        }
    }

    static func random(_ call: CommandCall, _ out: inout ResponseWriter) throws -> CommandResult {
        call.session.partition.setRandom(try Arguments.bool(call[0]))
        return .ok
    }

    static func repeatMode(_ call: CommandCall, _ out: inout ResponseWriter) throws -> CommandResult {
        let on = try Arguments.bool(call[0])
        call.session.partition.setOptions { $0.repeatMode = on }
        return .ok
    }

    static func single(_ call: CommandCall, _ out: inout ResponseWriter) throws -> CommandResult {
        guard let mode = SingleMode(rawValue: call[0]) else {
            throw ProtocolError.argument("Unrecognized single mode, expected 0, 1, or oneshot")
        }
        call.session.partition.setOptions { $0.single = mode }
        return .ok
    }

    static func consumeMode(_ call: CommandCall, _ out: inout ResponseWriter) throws -> CommandResult {
        guard let mode = ConsumeMode(rawValue: call[0]) else {
            throw ProtocolError.argument("Unrecognized consume mode, expected 0, 1, or oneshot")
        }
        call.session.partition.setOptions { $0.consume = mode }
        return .ok
    }

    static func crossfade(_ call: CommandCall, _ out: inout ResponseWriter) throws -> CommandResult {
        let seconds = Int(try Arguments.unsigned(call[0]))
        call.session.partition.setOptions { $0.crossfade = seconds }
        return .ok
    }

    static func mixrampdb(_ call: CommandCall, _ out: inout ResponseWriter) throws -> CommandResult {
        let decibels = Float(try Arguments.float(call[0]))
        call.session.partition.setOptions { $0.mixRampDB = decibels }
        return .ok
    }

    static func mixrampdelay(_ call: CommandCall, _ out: inout ResponseWriter) throws -> CommandResult {
        let seconds = Float(try Arguments.float(call[0]))
        call.session.partition.setOptions { $0.mixRampDelay = seconds > 0 ? seconds : nil }
        return .ok
    }

    static func replayGainMode(_ call: CommandCall, _ out: inout ResponseWriter) throws -> CommandResult {
        let mode = call[0]
        guard ["off", "track", "album", "auto"].contains(mode) else {
            throw ProtocolError.argument("Unrecognized replay gain mode")
        }
        call.session.partition.setOptions { $0.replayGainMode = mode }
        return .ok
    }

    static func replayGainStatus(_ call: CommandCall, _ out: inout ResponseWriter) throws -> CommandResult {
        out.field("replay_gain_mode", call.session.partition.options.replayGainMode)
        return .ok
    }

    static func setvol(_ call: CommandCall, _ out: inout ResponseWriter) throws -> CommandResult {
        let level = Int(try Arguments.unsigned(call[0], max: 100))
        try setVolume(call.session.partition, level, missingMixerCode: .unknown)
        return .ok
    }

    static func volume(_ call: CommandCall, _ out: inout ResponseWriter) throws -> CommandResult {
        let change = try Arguments.integer(call[0], min: -100, max: 100)
        let partition = call.session.partition
        guard let current = partition.outputs.volume else { throw ProtocolError(.system, "No mixer") }
        // MPD sets (and announces) nothing when the level stays.
        let level = max(0, min(100, current + change))
        if level != current { try setVolume(partition, level, missingMixerCode: .system) }
        return .ok
    }

    static func getvol(_ call: CommandCall, _ out: inout ResponseWriter) throws -> CommandResult {
        if let volume = call.session.partition.outputs.volume { out.field("volume", volume) }
        return .ok
    }

}
