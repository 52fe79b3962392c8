import NimbusModel

extension ResponseWriter {
    /// `Format: 44100:16:2` written from the numbers, without building the description string
    /// for every song of a listing.
    public mutating func field(_ key: StaticString, format: AudioFormat) {
        guard format.sample != .dsd else { return field(key, format.description) }
        let sample: StaticString
        switch format.sample {
        case .s8: sample = ":8:"
        case .s16: sample = ":16:"
        case .s24: sample = ":24:"
        case .s32: sample = ":32:"
        case .float, .dsd: sample = ":f:"
        }
        field(key, Int(format.sampleRate), sample, Int(format.channels))
    }
}
