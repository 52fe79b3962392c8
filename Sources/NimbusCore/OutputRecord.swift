import NimbusModel
import NimbusOutput
import NimbusPCM
import NimbusPlayer
import NimbusSupport

/// An audio output as clients see it (`outputs`, `enableoutput`, `outputset`) plus what the
/// player needs to create it and what the mixer commands need to set its volume.
@CoreActor
public final class OutputRecord {
    /// The index within its partition's output list (`outputid`).
    public internal(set) var id: Int
    public let configuration: OutputConfiguration
    public var name: String { configuration.name }
    public var plugin: String { configuration.type }
    public internal(set) var enabled: Bool
    /// `outputset` attributes, in the order MPD prints them.
    public internal(set) var attributes: [(name: String, value: String)]
    let make: @Sendable () -> any AudioOutput
    /// The output's own filter stages, made anew for each thread that plays it.
    var filters: @Sendable () -> [any Filter] = { [] }
    /// The equalizer, balance and crossfeed the output's thread runs; the sound library sets it.
    public let sound = SoundChain()
    private var mixer: Mixer
    /// The software mixer's level; also the level remembered in the state file.
    private var softwareVolume = 100

    /// How this output's volume is set; a hardware control that cannot be opened falls back
    /// to software volume unless `mixer_type "hardware"` was asked for explicitly.
    enum Mixer {
        case none
        case software
        case hardware((any HardwareMixer)?)
    }

    public init(
        id: Int, configuration: OutputConfiguration, attributes: [(name: String, value: String)] = [],
        hardwareMixer: @autoclosure () -> (any HardwareMixer)? = nil, explicitHardware: Bool = true,
        make: @escaping @Sendable () -> any AudioOutput
    ) {
        self.id = id
        self.configuration = configuration
        self.enabled = configuration.enabled
        self.attributes = attributes
        self.make = make
        switch configuration.mixer {
        case .none: mixer = .none
        case .software: mixer = .software
        case .hardware:
            let control = hardwareMixer()
            mixer = control == nil && !explicitHardware ? .software : .hardware(control)
        }
    }

    /// An output as its plugin defines it: the plugin's format when the block names none, and
    /// no volume control for `mixer_type "hardware"` (MPD's default) on a plugin without one.
    public convenience init(id: Int, configuration: OutputConfiguration, definition: OutputDefinition, explicitMixer: Bool) {
        var configuration = configuration
        if configuration.format == nil { configuration.format = definition.defaultFormat }
        if definition.hardwareMixer == nil, configuration.mixer == .hardware { configuration.mixer = .none }
        self.init(
            id: id, configuration: configuration, attributes: definition.attributes,
            hardwareMixer: definition.hardwareMixer?(), explicitHardware: explicitMixer, make: definition.make)
        filters = definition.filters
    }

    /// What stays in a partition's list when the output moves to another partition: MPD's
    /// disabled `dummy` placeholder with the same name and id.
    public static func placeholder(for output: OutputRecord) -> OutputRecord {
        let record = OutputRecord(
            id: output.id,
            configuration: OutputConfiguration(name: output.name, type: "dummy", mixer: .none, enabled: false)
        ) { NullOutput(paced: true) }
        return record
    }

    public var isPlaceholder: Bool { plugin == "dummy" }

    var slot: PlayerEngine.OutputSlot {
        // MPD's `tags "no"`: the output is not told of songs (no ICY titles on a stream).
        let inner = self.make
        var make = inner
        if !configuration.flag("tags", default: true) { make = { WithoutTags(inner()) } }
        return PlayerEngine.OutputSlot(id: id, name: name, fixedFormat: configuration.format, sound: sound, filters: filters, make: make)
    }

    /// The level the player applies to this output's samples (100 unless software mixing).
    var sampleVolume: Int {
        if case .software = mixer { return softwareVolume }
        return 100
    }

    /// 0…100, or nil when this output has no working mixer. As in MPD a disabled output's
    /// mixer still counts.
    public var volume: Int? {
        switch mixer {
        case .none: return nil
        case .software: return softwareVolume
        case .hardware(let control): return control?.volume
        }
    }

    /// False when the output has no mixer that could take the level.
    func setVolume(_ level: Int) -> Bool {
        switch mixer {
        case .none: return false
        case .software:
            softwareVolume = level
            return true
        case .hardware(let control):
            return control?.setVolume(level) ?? false
        }
    }

    /// The software mixer's level (what the state file calls `sw_volume`).
    var softwareLevel: Int? {
        if case .software = mixer { return softwareVolume }
        return nil
    }

    var hasMixer: Bool {
        if case .none = mixer { return false }
        return true
    }

    /// Restores a software level from the state file without touching hardware.
    func restoreSoftwareVolume(_ level: Int) {
        if case .software = mixer { softwareVolume = max(0, min(100, level)) }
    }

    func setAttribute(_ name: String, _ value: String) -> Bool {
        guard let index = attributes.firstIndex(where: { $0.name == name }) else { return false }
        attributes[index].value = value
        return true
    }
}
