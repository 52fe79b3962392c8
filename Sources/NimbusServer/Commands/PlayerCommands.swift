import NimbusCore
import NimbusProtocol
import NimbusQueue
import NimbusSupport

/// Transport: play, playid, pause, stop, next, previous, seek, seekid, seekcur, clearerror
/// (the options and the volume are OptionCommands').
@CoreActor
enum PlayerCommands {
    nonisolated static let all: [Command] = [
        Command("play", .player, arguments: 0...1, handler: play),
        Command("playid", .player, arguments: 0...1, handler: playID),
        Command("pause", .player, arguments: 0...1, handler: pause),
        Command("stop", .player, arguments: 0...0, handler: stop),
        Command("next", .player, arguments: 0...0, handler: next),
        Command("previous", .player, arguments: 0...0, handler: previous),
        Command("seek", .player, arguments: 2...2, handler: seek),
        Command("seekid", .player, arguments: 2...2, handler: seekID),
        Command("seekcur", .player, arguments: 1...1, handler: seekCurrent),
        Command("clearerror", .player, arguments: 0...0, handler: clearerror),
    ]

    static func play(_ call: CommandCall, _ out: inout ResponseWriter) throws -> CommandResult {
        let position = try call.arguments.first.map { try Arguments.integer($0) } ?? -1
        guard position >= -1 else { throw PlaybackError.badSongIndex }
        try call.session.partition.play(position: position == -1 ? nil : position)
        return .ok
    }

    static func playID(_ call: CommandCall, _ out: inout ResponseWriter) throws -> CommandResult {
        let id = try call.arguments.first.map { try Arguments.integer($0) } ?? -1
        let partition = call.session.partition
        try partition.play(position: id < 0 ? nil : try partition.queue.position(ofExistingID: id))
        return .ok
    }

    static func pause(_ call: CommandCall, _ out: inout ResponseWriter) throws -> CommandResult {
        let value = try call.arguments.first.map { try Arguments.bool($0) }
        call.session.partition.pause(value)
        return .ok
    }

    static func seek(_ call: CommandCall, _ out: inout ResponseWriter) throws -> CommandResult {
        let position = Int(try Arguments.unsigned(call[0]))
        let time = try Arguments.songTimeMilliseconds(call[1])
        try call.session.partition.seek(position: position, milliseconds: time)
        return .ok
    }

    static func seekID(_ call: CommandCall, _ out: inout ResponseWriter) throws -> CommandResult {
        let id = Int(try Arguments.unsigned(call[0]))
        let time = try Arguments.songTimeMilliseconds(call[1])
        let partition = call.session.partition
        try partition.seek(position: try partition.queue.position(ofExistingID: id), milliseconds: time)
        return .ok
    }

    /// `seekcur 30`, `seekcur +5`, `seekcur -5`.
    static func seekCurrent(_ call: CommandCall, _ out: inout ResponseWriter) throws -> CommandResult {
        let text = call[0]
        let relative = text.first == "+" || text.first == "-"
        let time = relative ? try Arguments.signedSongTimeMilliseconds(text) : try Arguments.songTimeMilliseconds(text)
        try call.session.partition.seekCurrent(milliseconds: time, relative: relative)
        return .ok
    }

    static func stop(_ call: CommandCall, _ out: inout ResponseWriter) throws -> CommandResult {
        call.session.partition.stop()
        return .ok
    }

    static func next(_ call: CommandCall, _ out: inout ResponseWriter) throws -> CommandResult {
        try call.session.partition.next()
        return .ok
    }

    static func previous(_ call: CommandCall, _ out: inout ResponseWriter) throws -> CommandResult {
        try call.session.partition.previous()
        return .ok
    }

    static func clearerror(_ call: CommandCall, _ out: inout ResponseWriter) throws -> CommandResult {
        call.session.partition.clearError()
        return .ok
    }

}
