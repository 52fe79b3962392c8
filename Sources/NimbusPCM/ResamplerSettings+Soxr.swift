import NimbusModel

/// libsoxr's names for the qualities.
extension ResamplerSettings.Quality {
    /// The `soxr_quality_spec` recipe (SOXR_VHQ … SOXR_QQ).
    var recipe: UInt {
        switch self {
        case .veryHigh: 6  // SOXR_28_BITQ
        case .high: 4  // SOXR_20_BITQ
        case .medium: 2  // SOXR_MQ
        case .low: 1  // SOXR_LQ
        case .quick: 0  // SOXR_QQ
        }
    }
}
