import NimbusModel
import NimbusPCM

/// How a configured output is built: what the player creates on its thread, the format it
/// defaults to, its volume control and its `outputset` attributes.
public struct OutputDefinition: Sendable {
    /// Creates the output on the output thread's first use (outputs own C handles).
    public var make: @Sendable () -> any AudioOutput
    /// The format used when the block gives none (nil: the song's own).
    public var defaultFormat: AudioFormatPattern?
    /// Opens the plugin's hardware volume control; nil for plugins that have none, for which
    /// `mixer_type "hardware"` (MPD's default) means no volume control at all.
    public var hardwareMixer: (@Sendable () -> (any HardwareMixer)?)?
    /// `outputset` attributes in the order `outputs` prints them.
    public var attributes: [(name: String, value: String)]
    /// The output's own filter stages (MPD's `filters` of an `audio_output`), made for its
    /// thread and run at the song's format before the device's conversion; none by default.
    public var filters: @Sendable () -> [any Filter] = { [] }

    public init(
        defaultFormat: AudioFormatPattern? = nil, hardwareMixer: (@Sendable () -> (any HardwareMixer)?)? = nil,
        attributes: [(name: String, value: String)] = [], make: @escaping @Sendable () -> any AudioOutput
    ) {
        self.make = make
        self.defaultFormat = defaultFormat
        self.hardwareMixer = hardwareMixer
        self.attributes = attributes
    }
}

/// A device's own volume control (an ALSA mixer element): what `setvol` moves when an output
/// has `mixer_type "hardware"`. The core sees only this, never the plugin behind it.
public protocol HardwareMixer: Sendable {
    /// 0–100, nil when the control cannot be read right now.
    var volume: Int? { get }
    func setVolume(_ percent: Int) -> Bool
}

/// One output plugin: the `type` of an `audio_output` block and how to build it. Adding a
/// plugin is one file in `Plugins/` and one line in `OutputRegistry.standard`.
public protocol OutputPlugin: Sendable {
    var type: String { get }
    /// Builds the output a block describes; throws for a block that cannot work (logged, skipped).
    func configure(_ configuration: OutputConfiguration) throws(OutputError) -> OutputDefinition
}

/// The output plugins in the order MPD lists them, handed to the assembly.
public struct OutputRegistry: Sendable {
    public let plugins: [any OutputPlugin]

    public init(_ plugins: [any OutputPlugin]) { self.plugins = plugins }

    public static let standard = OutputRegistry([
        ALSAOutputPlugin(), NullOutputPlugin(), FifoOutputPlugin(), PipeOutputPlugin(), RecorderOutputPlugin(), HTTPDOutputPlugin(), PulseOutputPlugin(),
    ])

    public func plugin(forType type: String) -> (any OutputPlugin)? { plugins.first { $0.type == type } }
}

extension OutputConfiguration {
    /// A yes/no setting as MPD reads it; anything else keeps the default.
    public func flag(_ key: String, default fallback: Bool) -> Bool {
        switch settings[key] {
        case "yes", "true", "1": true
        case "no", "false", "0": false
        default: fallback
        }
    }
}
