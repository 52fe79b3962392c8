import NimbusCore
import NimbusProtocol
import NimbusQueue
import NimbusSupport

/// Transport and playback options: play, playid, pause, stop, next, previous, seek, seekid,
/// seekcur, clearerror, random, repeat, single, consume, crossfade, mixrampdb, mixrampdelay,
/// replay_gain_mode, replay_gain_status, setvol, volume, getvol.
@CoreActor
enum PlayerCommands {
    nonisolated static let all: [Command] = [
        Command("play", .control, arguments: 0...1, handler: play),
        Command("playid", .control, arguments: 0...1, handler: playID),
        Command("pause", .control, arguments: 0...1, handler: pause),
        Command("stop", .control, arguments: 0...0) { call, _ in
            call.client.partition.stop()
            return .ok
        },
        Command("next", .control, arguments: 0...0) { call, _ in
            try call.client.partition.next()
            return .ok
        },
        Command("previous", .control, arguments: 0...0) { call, _ in
            try call.client.partition.previous()
            return .ok
        },
        Command("seek", .control, arguments: 2...2, handler: seek),
        Command("seekid", .control, arguments: 2...2, handler: seekID),
        Command("seekcur", .control, arguments: 1...1, handler: seekCurrent),
        Command("clearerror", .control, arguments: 0...0) { call, _ in
            call.client.partition.clearError()
            return .ok
        },
    ]

    static func play(_ call: CommandCall, _ out: inout ResponseWriter) throws -> CommandResult {
        let position = try call.arguments.first.map { try Arguments.integer($0) } ?? -1
        guard position >= -1 else { throw PlaybackError.badSongIndex }
        try call.client.partition.play(position: position == -1 ? nil : position)
        return .ok
    }

    static func playID(_ call: CommandCall, _ out: inout ResponseWriter) throws -> CommandResult {
        let id = try call.arguments.first.map { try Arguments.integer($0) } ?? -1
        try call.client.partition.play(id: id < 0 ? nil : id)
        return .ok
    }

    static func pause(_ call: CommandCall, _ out: inout ResponseWriter) throws -> CommandResult {
        let value = try call.arguments.first.map { try Arguments.bool($0) }
        call.client.partition.pause(value)
        return .ok
    }

    static func seek(_ call: CommandCall, _ out: inout ResponseWriter) throws -> CommandResult {
        let position = Int(try Arguments.unsigned(call[0]))
        let time = try Arguments.songTime(call[1])
        try call.client.partition.seek(position: position, milliseconds: milliseconds(time))
        return .ok
    }

    static func seekID(_ call: CommandCall, _ out: inout ResponseWriter) throws -> CommandResult {
        let id = Int(try Arguments.unsigned(call[0]))
        let time = try Arguments.songTime(call[1])
        try call.client.partition.seek(id: id, milliseconds: milliseconds(time))
        return .ok
    }

    /// `seekcur 30`, `seekcur +5`, `seekcur -5`.
    static func seekCurrent(_ call: CommandCall, _ out: inout ResponseWriter) throws -> CommandResult {
        let text = call[0]
        let relative = text.first == "+" || text.first == "-"
        let seconds = relative ? try Arguments.float(text) : try Arguments.songTime(text)
        try call.client.partition.seekCurrent(milliseconds: milliseconds(seconds), relative: relative)
        return .ok
    }

    private static func milliseconds(_ seconds: Double) -> Int { Int((seconds * 1000).rounded()) }
}

/// The per-partition options and the volume.
@CoreActor
enum OptionCommands {
    nonisolated static let all: [Command] = [
        Command("random", .control, arguments: 1...1) { call, _ in
            call.client.partition.setRandom(try Arguments.bool(call[0]))
            return .ok
        },
        Command("repeat", .control, arguments: 1...1) { call, _ in
            let on = try Arguments.bool(call[0])
            call.client.partition.setOptions { $0.repeatMode = on }
            return .ok
        },
        Command("single", .control, arguments: 1...1) { call, _ in
            guard let mode = SingleMode(rawValue: call[0]) else {
                throw ProtocolError.argument("Unrecognized single mode, expected 0, 1, or oneshot")
            }
            call.client.partition.setOptions { $0.single = mode }
            return .ok
        },
        Command("consume", .control, arguments: 1...1) { call, _ in
            let on = try Arguments.bool(call[0])
            call.client.partition.setOptions { $0.consume = on }
            return .ok
        },
        Command("crossfade", .control, arguments: 1...1) { call, _ in
            let seconds = Int(try Arguments.unsigned(call[0]))
            call.client.partition.setOptions { $0.crossfade = seconds }
            return .ok
        },
        Command("mixrampdb", .control, arguments: 1...1) { call, _ in
            let decibels = Float(try Arguments.float(call[0]))
            call.client.partition.setOptions { $0.mixRampDB = decibels }
            return .ok
        },
        Command("mixrampdelay", .control, arguments: 1...1) { call, _ in
            let seconds = Float(try Arguments.float(call[0]))
            call.client.partition.setOptions { $0.mixRampDelay = seconds > 0 ? seconds : nil }
            return .ok
        },
        Command("replay_gain_mode", .control, arguments: 1...1) { call, _ in
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
        Command("setvol", .control, arguments: 1...1) { call, _ in
            let level = Int(try Arguments.unsigned(call[0], max: 100))
            try setVolume(call.client.partition, level, missingMixerCode: .unknown)
            return .ok
        },
        Command("volume", .control, arguments: 1...1) { call, _ in
            let change = try Arguments.integer(call[0], min: -100, max: 100)
            let partition = call.client.partition
            guard let current = partition.volume else { throw ProtocolError(.system, "No mixer") }
            try setVolume(partition, max(0, min(100, current + change)), missingMixerCode: .system)
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
