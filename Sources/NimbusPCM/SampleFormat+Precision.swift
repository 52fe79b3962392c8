import NimbusModel

extension SampleFormat {
    /// Bits of precision the format carries (float counts as more than any integer), to tell
    /// whether a conversion cuts bits.
    var precisionBits: Int {
        switch self {
        case .s8: 8
        case .s16: 16
        case .s24: 24
        case .s32: 32
        case .float: 33
        case .dsd: 1
        }
    }
}
