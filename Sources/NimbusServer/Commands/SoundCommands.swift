import NimbusCore
import NimbusOutput
import NimbusPCM
import NimbusProtocol
import NimbusSupport

/// The equalizer and the rest of an output's sound chain (Nimbus's own; MPD has none), under
/// names MPD does not use: presets as Equalizer APO / AutoEq text, one quoted argument per
/// line, and per output the preset, A/B bypass, balance and crossfeed.
@CoreActor
enum SoundCommands {
    nonisolated static let all: [Command] = [
        Command("eqpresets", .read, arguments: 0...0, available: available, handler: eqpresets),
        Command("eqexport", .read, arguments: 1...1, available: available, handler: eqexport),
        Command("eqimport", .control, arguments: 1...1, unlimited: true, available: available, handler: eqimport),
        Command("eqappend", .control, arguments: 2...2, unlimited: true, available: available, handler: eqappend),
        Command("eqband", .control, arguments: 3...3, available: available, handler: eqband),
        Command("eqdelete", .control, arguments: 1...1, available: available, handler: eqdelete),
        Command("eqset", .control, arguments: 2...2, available: available, handler: eqset),
        Command("eqbypass", .control, arguments: 2...2, available: available, handler: eqbypass),
        Command("eqbalance", .control, arguments: 2...2, available: available, handler: eqbalance),
        Command("eqcrossfeed", .control, arguments: 2...2, available: available, handler: eqcrossfeed),
        Command("eqstatus", .read, arguments: 0...1, available: available, handler: eqstatus),
    ]

    nonisolated static let available: Command.Availability = { $0.sound != nil }

    private static func library(_ call: CommandCall) throws -> SoundLibrary {
        guard let sound = call.context.sound else { throw ProtocolError(.unknown, "unknown command") }
        return sound
    }

    static func eqpresets(_ call: CommandCall, _ out: inout ResponseWriter) throws -> CommandResult {
        for name in try library(call).presetNames { out.field("preset", name) }
        return .ok
    }

    static func eqexport(_ call: CommandCall, _ out: inout ResponseWriter) throws -> CommandResult {
        let sound = try library(call)
        let lines = try run { () throws(SoundLibrary.Failure) in try sound.export(call[0]) }
        for line in lines { out.field("line", line) }
        return .ok
    }

    static func eqimport(_ call: CommandCall, _ out: inout ResponseWriter) throws -> CommandResult {
        try store(call, name: call[0], lines: Array(call.arguments.dropFirst()))
    }

    /// More lines for an existing preset: a long preset sent as a command list, a few lines per
    /// command. The preset is checked whole again; a bad line leaves it as it was.
    static func eqappend(_ call: CommandCall, _ out: inout ResponseWriter) throws -> CommandResult {
        let sound = try library(call)
        let before = try run { () throws(SoundLibrary.Failure) in try sound.export(call[0]) }
        return try store(call, name: call[0], lines: before + Array(call.arguments.dropFirst()))
    }

    /// `eqband PRESET N "ON PK Fc 1000 Hz Gain 3 dB Q 1"`: replaces band N (1-based), adds one
    /// at N = count + 1, or removes it with `delete` — what the page sends while a band is dragged.
    static func eqband(_ call: CommandCall, _ out: inout ResponseWriter) throws -> CommandResult {
        let sound = try library(call)
        var lines = try run { () throws(SoundLibrary.Failure) in try sound.export(call[0]) }
        let bands = lines.count - 1
        guard let number = Int(call[1]), number >= 1, number <= bands + 1 else {
            throw ProtocolError.argument("Band number 1 to \(bands + 1) expected: \"\(call[1])\"")
        }
        if call[2].lowercased() == "delete" {
            guard number <= bands else { throw ProtocolError(.noExist, "No such band") }
            lines.remove(at: number)
        } else if number <= bands {
            lines[number] = "Filter \(number): " + call[2]
        } else {
            lines.append("Filter \(number): " + call[2])
        }
        return try store(call, name: call[0], lines: lines)
    }

    private static func store(_ call: CommandCall, name: String, lines: [String]) throws -> CommandResult {
        let sound = try library(call)
        let used = try run { () throws(SoundLibrary.Failure) in try sound.importPreset(name, lines: lines) }
        call.context.idle.emit(used ? [.output, .eq] : .eq)
        return .ok
    }

    static func eqdelete(_ call: CommandCall, _ out: inout ResponseWriter) throws -> CommandResult {
        let sound = try library(call)
        let used = try run { () throws(SoundLibrary.Failure) in try sound.delete(call[0]) }
        call.context.idle.emit(used ? [.output, .eq] : .eq)
        return .ok
    }

    static func eqset(_ call: CommandCall, _ out: inout ResponseWriter) throws -> CommandResult {
        try setPreset(call, output: call[0], preset: call[1])
        return .ok
    }

    /// `eqset OUTPUT PRESET|off`, also reached as `outputset ID eq PRESET` from clients that
    /// edit output attributes (myMPD).
    static func setPreset(_ call: CommandCall, output: String, preset: String) throws {
        let name: String? = preset.lowercased() == "off" ? nil : preset
        try change(call, output: output) { choice in choice.preset = name }
    }

    static func eqbypass(_ call: CommandCall, _ out: inout ResponseWriter) throws -> CommandResult {
        let bypass = try Arguments.bool(call[1])
        try change(call, output: call[0]) { choice in choice.bypass = bypass }
        return .ok
    }

    static func eqbalance(_ call: CommandCall, _ out: inout ResponseWriter) throws -> CommandResult {
        guard let level = Int(call[1]), (-100...100).contains(level) else {
            throw ProtocolError.argument("Balance from -100 (left) to 100 (right) expected: \"\(call[1])\"")
        }
        try change(call, output: call[0]) { choice in choice.balance = Double(level) / 100 }
        return .ok
    }

    static func eqcrossfeed(_ call: CommandCall, _ out: inout ResponseWriter) throws -> CommandResult {
        let value = call[1].lowercased()
        guard value == "off" || Crossfeed.Level(rawValue: value) != nil else {
            throw ProtocolError.argument("Crossfeed off, default, cmoy or jmeier expected: \"\(call[1])\"")
        }
        try change(call, output: call[0]) { choice in choice.crossfeed = value == "off" ? nil : value }
        return .ok
    }

    private static func change(_ call: CommandCall, output: String, _ edit: @escaping (inout SoundLibrary.Choice) -> Void) throws {
        let sound = try library(call)
        try run { () throws(SoundLibrary.Failure) in try sound.change(output: output) { choice in edit(&choice) } }
        call.context.idle.emit([.output, .eq])
    }

    /// Each output's chain: what is set, the attenuation in front of the equalizer, and how
    /// many samples reached beyond full scale after it since the daemon started.
    static func eqstatus(_ call: CommandCall, _ out: inout ResponseWriter) throws -> CommandResult {
        let sound = try library(call)
        var outputs = sound.outputs
        if call.arguments.count == 1 {
            outputs = [try run { () throws(SoundLibrary.Failure) in try sound.output(named: call[0]) }]
        }
        for output in outputs {
            let settings = output.sound.settings
            out.field("outputname", output.name)
            out.field("eq", settings.presetName ?? "off")
            out.field("bypass", settings.bypass ? 1 : 0)
            out.field("balance", Int((settings.balance * 100).rounded()))
            out.field("crossfeed", settings.crossfeed?.rawValue ?? "off")
            out.field("headroom", EqualizerPreset.format((output.sound.headroomDB * 10).rounded() / 10))
            out.field("clipped", output.sound.clipped)
        }
        return .ok
    }

    /// Runs a library call, turning its failure into the ACK clients see.
    @discardableResult
    private static func run<T>(_ body: () throws(SoundLibrary.Failure) -> T) throws -> T {
        do throws(SoundLibrary.Failure) {
            return try body()
        } catch {
            switch error {
            case .badName(let name): throw ProtocolError.argument("Bad preset name: \"\(name)\"")
            case .noSuchPreset: throw ProtocolError(.noExist, "No such preset")
            case .noSuchOutput: throw ProtocolError(.noExist, "No such audio output")
            case .badPreset(let problem): throw ProtocolError.argument("Preset \(problem.description)")
            case .notSaved(let reason): throw ProtocolError(.system, "Preset not saved: \(reason)")
            }
        }
    }
}
