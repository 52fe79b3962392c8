import NimbusCore
import NimbusProtocol
import NimbusQueue
import NimbusSupport

/// The per-partition options and the volume.
@CoreActor
enum OptionCommands {
    nonisolated static let all: [Command] = [
        Command("random", .player, arguments: 1...1) { call, _ in
            call.client.partition.setRandom(try Arguments.bool(call[0]))
            return .ok
        },
        Command("repeat", .player, arguments: 1...1) { call, _ in
            let on = try Arguments.bool(call[0])
            call.client.partition.setOptions { $0.repeatMode = on }
            return .ok
        },
        Command("single", .player, arguments: 1...1) { call, _ in
            guard let mode = SingleMode(rawValue: call[0]) else {
                throw ProtocolError.argument("Unrecognized single mode, expected 0, 1, or oneshot")
            }
            call.client.partition.setOptions { $0.single = mode }
            return .ok
        },
        Command("consume", .player, arguments: 1...1) { call, _ in
            guard let mode = ConsumeMode(rawValue: call[0]) else {
                throw ProtocolError.argument("Unrecognized consume mode, expected 0, 1, or oneshot")
            }
            call.client.partition.setOptions { $0.consume = mode }
            return .ok
        },
        Command("crossfade", .player, arguments: 1...1) { call, _ in
            let seconds = Int(try Arguments.unsigned(call[0]))
            call.client.partition.setOptions { $0.crossfade = seconds }
            return .ok
        },
        Command("mixrampdb", .player, arguments: 1...1) { call, _ in
            let decibels = Float(try Arguments.float(call[0]))
            call.client.partition.setOptions { $0.mixRampDB = decibels }
            return .ok
        },
        Command("mixrampdelay", .player, arguments: 1...1) { call, _ in
            let seconds = Float(try Arguments.float(call[0]))
            call.client.partition.setOptions { $0.mixRampDelay = seconds > 0 ? seconds : nil }
            return .ok
        },
        Command("replay_gain_mode", .player, arguments: 1...1) { call, _ in
            let mode = call[0]
            guard ["off", "track", "album", "auto"].contains(mode) else {
                throw ProtocolError.argument("Unrecognized replay gain mode")
            }
            call.client.partition.setOptions { $0.replayGainMode = mode }
            return .ok
        },
        Command("replay_gain_status", .read, arguments: 0...0) { call, out in
            out.field("replay_gain_mode", call.client.partition.options.replayGainMode)
            return .ok
        },
        Command("setvol", .player, arguments: 1...1) { call, _ in
            let level = Int(try Arguments.unsigned(call[0], max: 100))
            try setVolume(call.client.partition, level, missingMixerCode: .unknown)
            return .ok
        },
        Command("volume", .player, arguments: 1...1) { call, _ in
            let change = try Arguments.integer(call[0], min: -100, max: 100)
            let partition = call.client.partition
            guard let current = partition.volume else { throw ProtocolError(.system, "No mixer") }
            // MPD sets (and announces) nothing when the level stays.
            let level = max(0, min(100, current + change))
            if level != current { try setVolume(partition, level, missingMixerCode: .system) }
            return .ok
        },
        Command("getvol", .read, arguments: 0...0) { call, out in
            if let volume = call.client.partition.volume { out.field("volume", volume) }
            return .ok
        },
    ]

    private static func setVolume(_ partition: Partition, _ level: Int, missingMixerCode: AckCode) throws {
        do {
            try partition.setVolume(level)
        } catch .noMixer {
            throw ProtocolError(missingMixerCode, "No mixer")
        }
    }
}
