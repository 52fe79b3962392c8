import NimbusModel
import Synchronization

/// The process-wide resampler setting and libsoxr's names for the qualities.
extension ResamplerSettings {
    /// What the daemon uses; set once from the configuration before any output opens.
    public static var current: ResamplerSettings {
        get { shared.withLock { $0 } }
        set { shared.withLock { $0 = newValue } }
    }

    private static let shared = Mutex(ResamplerSettings.standard)
}

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
