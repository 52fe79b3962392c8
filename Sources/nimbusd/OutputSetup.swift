import NimbusConfig
import NimbusCore
import NimbusModel
import NimbusOutput
import NimbusSupport

/// Builds the outputs from `audio_output` blocks as MPD reads them. A block Nimbus cannot
/// use (unknown plugin, missing name) is skipped with a warning instead of stopping the
/// daemon; without any block, ALSA's default device is used, named as MPD names it.
@CoreActor
enum OutputSetup {
    static func outputs(from blocks: [ConfigBlock], logger: Logger) -> [OutputRecord] {
        if blocks.isEmpty {
            let configuration = OutputConfiguration(
                name: "default detected output", type: "alsa", settings: ["device": "default"], mixer: .hardware)
            return [alsa(id: 0, configuration, explicitMixer: false)]
        }
        var records: [OutputRecord] = []
        for block in blocks {
            guard let type = block.value("type") else {
                logger.warning("config: \(block.location): audio_output without \"type\"; ignored")
                continue
            }
            guard let name = block.value("name") else {
                logger.warning("config: \(block.location): audio_output without \"name\"; ignored")
                continue
            }
            var settings: [String: String] = [:]
            for param in block.params { settings[param.name] = param.value }
            let mixer = block.value("mixer_type").flatMap { MixerKind(rawValue: $0 == "null" ? "none" : $0) } ?? .hardware
            var format: AudioFormatPattern?
            if let text = block.value("format") {
                guard case let (rate, sample, channels)? = AudioFormat.parse(text) else {
                    logger.warning("config: \(block.location): bad format \"\(text)\"; ignored")
                    continue
                }
                format = AudioFormatPattern(sampleRate: rate, sample: sample, channels: channels)
            } else if type == "fifo" {
                // What snapserver expects by default.
                format = AudioFormatPattern(sampleRate: 48000, sample: .s16, channels: 2)
            }
            let enabled = block.value("enabled").map { ["yes", "true", "1"].contains($0) } ?? true
            let configuration = OutputConfiguration(
                name: name, type: type, settings: settings, mixer: mixer, format: format, enabled: enabled)
            let id = records.count
            switch type {
            case "alsa":
                records.append(alsa(id: id, configuration, explicitMixer: block.value("mixer_type") != nil))
            case "null":
                let paced = block.value("sync").map { !["no", "false", "0"].contains($0) } ?? true
                records.append(OutputRecord(id: id, configuration: softwareOnly(configuration)) { NullOutput(paced: paced) })
            case "fifo":
                guard let path = block.value("path") else {
                    logger.warning("config: \(block.location): fifo output \"\(name)\" without \"path\"; ignored")
                    continue
                }
                records.append(OutputRecord(id: id, configuration: softwareOnly(configuration)) { FifoOutput(path: path) })
            default:
                logger.warning("config: \(block.location): output plugin \"\(type)\" is not supported by Nimbus; \"\(name)\" ignored")
            }
        }
        return records
    }

    /// Outputs without a hardware mixer: `hardware` (MPD's default) means no volume control.
    private static func softwareOnly(_ configuration: OutputConfiguration) -> OutputConfiguration {
        var copy = configuration
        if copy.mixer == .hardware { copy.mixer = .none }
        return copy
    }

    private static func alsa(id: Int, _ configuration: OutputConfiguration, explicitMixer: Bool) -> OutputRecord {
        let device = configuration.settings["device"] ?? "default"
        let attributes: [(name: String, value: String)] = [
            ("allowed_formats", configuration.settings["allowed_formats"] ?? ""),
            ("dop", ["yes", "true", "1"].contains(configuration.settings["dop"] ?? "") ? "1" : "0"),
        ]
        return OutputRecord(
            id: id, configuration: configuration, attributes: attributes,
            hardwareMixer: ALSAMixer(
                device: configuration.settings["mixer_device"] ?? device, control: configuration.settings["mixer_control"]),
            explicitHardware: explicitMixer
        ) { ALSAOutput(device: device) }
    }
}
