import NimbusModel

extension ConfigReader {
    /// MPD's `resampler { plugin "soxr" quality "…" threads "…" }`. Nimbus always resamples
    /// with libsoxr: a `libsamplerate` block's `type` maps to the soxr quality of about the
    /// same cost, `internal` to "quick", each with a warning so the user knows.
    static func resampler(_ block: ConfigBlock, warnings: inout [String]) throws(ConfigError) -> ResamplerSettings {
        var settings = ResamplerSettings.standard
        let plugin = block.value("plugin") ?? "soxr"
        for param in block.params {
            switch param.name {
            case "plugin":
                guard ["soxr", "libsamplerate", "internal"].contains(param.value) else {
                    throw ConfigError("No such resampler plugin: \(param.value)", at: param.location)
                }
                if param.value == "internal" {
                    settings.quality = .quick
                    warnings.append("\(param.location): resampler \"internal\": Nimbus resamples with libsoxr; using quality \"quick\"")
                }
            case "quality" where plugin == "soxr":
                if param.value == "custom" {
                    warnings.append("\(param.location): soxr quality \"custom\" is not supported; using \"very high\"")
                    settings.quality = .veryHigh
                } else {
                    guard let quality = ResamplerSettings.Quality(rawValue: param.value) else {
                        throw ConfigError("Invalid quality setting: \(param.value)", at: param.location)
                    }
                    settings.quality = quality
                }
            case "threads" where plugin == "soxr":
                guard let threads = Int(param.value), (0...64).contains(threads) else {
                    throw ConfigError("Invalid threads setting: \(param.value)", at: param.location)
                }
                settings.threads = threads
            case "type" where plugin == "libsamplerate":
                var notes: [String] = []
                guard let mapped = ResamplerSettings.parseConverter(param.value, notes: &notes) else {
                    throw ConfigError("unknown samplerate converter '\(param.value)'", at: param.location)
                }
                settings.quality = mapped.quality
                warnings += notes.map { "\(param.location): \($0)" }
            case "precision", "phase_response", "passband_end", "stopband_begin", "attenuation", "flags":
                warnings.append("\(param.location): soxr '\(param.name)' is not supported; ignored")
            default:
                warnings.append("\(param.location): unknown resampler setting '\(param.name)'; ignored")
            }
        }
        return settings
    }

    /// The older `samplerate_converter "soxr very high"` line (a `resampler` block wins).
    static func samplerateConverter(_ param: ConfigParam, warnings: inout [String]) throws(ConfigError) -> ResamplerSettings {
        var notes: [String] = []
        guard let settings = ResamplerSettings.parseConverter(param.value, notes: &notes) else {
            throw ConfigError("unknown samplerate converter '\(param.value)'", at: param.location)
        }
        warnings += notes.map { "\(param.location): \($0)" }
        return settings
    }
}
