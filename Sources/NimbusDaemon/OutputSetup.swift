import NimbusConfig
import NimbusCore
import NimbusModel
import NimbusOutput
import NimbusPCM
import NimbusSupport

/// Builds the outputs from `audio_output` blocks as MPD reads them. A block Nimbus cannot
/// use (unknown plugin, missing name or path) is skipped with a warning instead of stopping
/// the daemon; without any block, ALSA's default device is used, named as MPD names it.
@CoreActor
enum OutputSetup {
    /// The top-level settings every output takes unless its block says otherwise.
    struct Defaults {
        /// `audio_output_format`, under each block's own `format`.
        var format: AudioFormatPattern?
        /// The top-level `mixer_type` (MPD's deprecated fallback), under each block's own.
        var mixer: MixerKind?
        /// `volume_normalization`: MPD's normalize stage first in every output's chain.
        var normalize = false
        /// `filter { }` blocks by name, for the outputs' `filters`.
        var filters: [String: ConfigBlock] = [:]
    }

    static func outputs(from blocks: [ConfigBlock], registry: OutputRegistry, defaults: Defaults = Defaults(), logger: Logger)
        -> [OutputRecord]
    {
        let globalFormat = defaults.format
        guard !blocks.isEmpty else {
            let configuration = OutputConfiguration(
                name: "default detected output", type: "alsa", settings: ["device": "default"], mixer: .hardware, format: globalFormat)
            return [
                try? record(id: 0, configuration, registry: registry, explicitMixer: false, defaults: defaults, at: nil, logger: logger)
                    .get()
            ].compactMap { $0 }
        }
        var records: [OutputRecord] = []
        var skipped: [(OutputConfiguration, String)] = []
        for block in blocks {
            guard var configuration = configuration(of: block, mixer: defaults.mixer, logger: logger) else { continue }
            if let globalFormat {
                let own = configuration.format
                configuration.format = AudioFormatPattern(
                    sampleRate: own?.sampleRate ?? globalFormat.sampleRate, sample: own?.sample ?? globalFormat.sample,
                    channels: own?.channels ?? globalFormat.channels)
            }
            switch record(
                id: records.count, configuration, registry: registry,
                explicitMixer: block.value("mixer_type") != nil || block.value("mixer_enabled") != nil || defaults.mixer != nil,
                defaults: defaults, at: block.location, logger: logger)
            {
            case .success(let record): records.append(record)
            case .failure(let error): skipped.append((configuration, error.message))
            }
        }
        // Nothing left to play on: the outputs stay, each failing to open with why, so `play`
        // pauses with `error:` as MPD's does when no output opens — never a silent "play".
        if records.isEmpty {
            for (configuration, reason) in skipped {
                let definition = OutputDefinition { UnusableOutput(reason: reason) }
                records.append(OutputRecord(id: records.count, configuration: configuration, definition: definition, explicitMixer: false))
            }
        }
        return records
    }

    private static func configuration(of block: ConfigBlock, mixer fallback: MixerKind?, logger: Logger) -> OutputConfiguration? {
        guard let type = block.value("type") else {
            logger.warning("config: \(block.location): audio_output without \"type\"; ignored")
            return nil
        }
        guard let name = block.value("name") else {
            logger.warning("config: \(block.location): audio_output without \"name\"; ignored")
            return nil
        }
        var settings: [String: String] = [:]
        for param in block.params { settings[param.name] = param.value }
        // MPD's order: the block's `mixer_type`, its deprecated `mixer_enabled "no"`, the
        // top-level `mixer_type`, hardware.
        let disabled = block.value("mixer_enabled").map { ["no", "false", "0"].contains($0) } == true
        let mixer = block.value("mixer_type").flatMap { MixerKind(rawValue: $0 == "null" ? "none" : $0) }
            ?? (disabled ? MixerKind.none : nil) ?? fallback ?? .hardware
        var format: AudioFormatPattern?
        if let text = block.value("format") {
            guard case let (rate, sample, channels)? = AudioFormat.parse(text) else {
                logger.warning("config: \(block.location): bad format \"\(text)\"; ignored")
                return nil
            }
            format = AudioFormatPattern(sampleRate: rate, sample: sample, channels: channels)
        }
        let enabled = block.value("enabled").map { ["yes", "true", "1"].contains($0) } ?? true
        return OutputConfiguration(name: name, type: type, settings: settings, mixer: mixer, format: format, enabled: enabled)
    }

    private static func record(
        id: Int, _ configuration: OutputConfiguration, registry: OutputRegistry, explicitMixer: Bool, defaults: Defaults,
        at location: ConfigLocation?, logger: Logger
    ) -> Result<OutputRecord, OutputError> {
        let prefix = location.map { "config: \($0): " } ?? "config: "
        guard let plugin = registry.plugin(forType: configuration.type) else {
            logger.warning(
                prefix + "output plugin \"\(configuration.type)\" is not supported by Nimbus; \"\(configuration.name)\" ignored")
            return .failure(OutputError("output plugin \"\(configuration.type)\" is not supported by Nimbus"))
        }
        var named: @Sendable () -> [any Filter] = { [] }
        if let list = configuration.settings["filters"] {
            do {
                named = try OutputFilters.maker(list, blocks: defaults.filters)
            } catch {
                logger.warning(prefix + "\(error.message); \"\(configuration.name)\" ignored")
                return .failure(OutputError(error.message))
            }
        }
        do {
            var definition = try plugin.configure(configuration)
            let own = definition.filters, normalize = defaults.normalize, user = named
            definition.filters = { (normalize ? [NormalizeFilter()] : []) + own() + user() }
            return .success(OutputRecord(id: id, configuration: configuration, definition: definition, explicitMixer: explicitMixer))
        } catch {
            logger.warning(prefix + "\(error.message); ignored")
            return .failure(error)
        }
    }
}

/// What `nimbusd --check` says about the `audio_output` blocks without building them (an
/// httpd output would take its port): a warning for each block it will not play on, and
/// whether any is left.
public enum OutputCheck {
    public static func problems(_ blocks: [ConfigBlock], registry: OutputRegistry = .standard) -> (warnings: [String], usable: Bool) {
        guard !blocks.isEmpty else { return ([], true) }
        var warnings: [String] = []
        var usable = false
        for block in blocks {
            let name = block.value("name") ?? "?"
            guard let type = block.value("type") else {
                warnings.append("\(block.location): audio_output \"\(name)\" without \"type\"; it will not play")
                continue
            }
            guard registry.plugin(forType: type) != nil else {
                warnings.append("\(block.location): output plugin \"\(type)\" is not supported by Nimbus; \"\(name)\" will not play")
                continue
            }
            usable = true
        }
        return (warnings, usable)
    }
}

/// An output the config names but Nimbus cannot build (a plugin it lacks, a block missing a
/// setting): opening it fails with the reason, which `status` shows as `error:`.
final class UnusableOutput: AudioOutput {
    private let reason: String

    init(reason: String) { self.reason = reason }

    func open(_ format: AudioFormat) throws(OutputError) -> AudioFormat { throw OutputError(reason) }
    func play(_ pcm: UnsafeRawBufferPointer) throws(OutputError) { throw OutputError(reason) }
    func drain() {}
    func cancel() {}
    func pause() -> Bool { true }
    func resume() {}
    func close() {}
    var delayFrames: Int { 0 }
}
