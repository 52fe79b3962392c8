import NimbusCore
import NimbusProtocol
import NimbusSupport

/// outputs, enableoutput, disableoutput, toggleoutput, outputset.
@CoreActor
enum OutputCommands {
    nonisolated static let all: [Command] = [
        Command("outputs", .read, arguments: 0...0, handler: outputs),
        Command("enableoutput", .admin, arguments: 1...1, handler: enableoutput),
        Command("disableoutput", .admin, arguments: 1...1, handler: disableoutput),
        Command("toggleoutput", .admin, arguments: 1...1, handler: toggleoutput),
        Command("outputset", .admin, arguments: 3...3, handler: outputset),
    ]

    static func outputs(_ call: CommandCall, _ out: inout ResponseWriter) throws -> CommandResult {
        for output in call.session.partition.outputs.all {
            out.field("outputid", output.id)
            out.field("outputname", output.name)
            out.field("plugin", output.plugin)
            out.field("outputenabled", output.enabled ? 1 : 0)
            for attribute in output.attributes { out.field("attribute", attribute.name + "=" + attribute.value) }
            // Only while a preset is in use: an output without one answers exactly as MPD's.
            if let preset = output.sound.settings.presetName { out.field("attribute", "eq=" + preset) }
        }
        return .ok
    }

    private static func set(_ call: CommandCall, enabled: Bool?) throws -> CommandResult {
        let id = Int(try Arguments.unsigned(call[0]))
        try call.session.partition.outputs.setEnabled(id: id, enabled)
        return .ok
    }

    static func enableoutput(_ call: CommandCall, _ out: inout ResponseWriter) throws -> CommandResult {
        try set(call, enabled: true)
    }

    static func disableoutput(_ call: CommandCall, _ out: inout ResponseWriter) throws -> CommandResult {
        try set(call, enabled: false)
    }

    static func toggleoutput(_ call: CommandCall, _ out: inout ResponseWriter) throws -> CommandResult {
        try set(call, enabled: nil)
    }

    static func outputset(_ call: CommandCall, _ out: inout ResponseWriter) throws -> CommandResult {
        let id = Int(try Arguments.unsigned(call[0]))
        if call[1] == "eq", call.context.sound != nil, let output = try? call.session.partition.outputs.output(id: id), !output.isPlaceholder {
            try SoundCommands.setPreset(call, output: output.name, preset: call[2])
            return .ok
        }
        try call.session.partition.outputs.setAttribute(id: id, name: call[1], value: call[2])
        return .ok
    }

}
