/// How the daemon's sample-rate conversions are done: MPD's `resampler { plugin "soxr"
/// quality "…" threads "…" }` block (or its older `samplerate_converter` line), read once at
/// start and handed down (`RateConversion.soxr`) to the partitions, whose output threads,
/// crossfade mixer and fades make the conversions; MPD too has one resampler configuration
/// for the whole daemon.
public struct ResamplerSettings: Equatable, Sendable {
    /// libsoxr's quality recipes under MPD's names.
    public enum Quality: String, CaseIterable, Sendable {
        case veryHigh = "very high"
        case high
        case medium
        case low
        case quick
    }

    public var quality: Quality
    /// libsoxr worker threads per conversion; 0 lets it choose (MPD's default is 1: a box has
    /// few cores and several outputs).
    public var threads: Int

    /// MPD's soxr defaults.
    public static let standard = ResamplerSettings(quality: .high, threads: 1)

    public init(quality: Quality, threads: Int) {
        self.quality = quality
        self.threads = threads
    }

    /// Reads MPD's `samplerate_converter` value: `soxr`, `soxr very high` …, or one of the
    /// libsamplerate names and numbers MPD also takes (mapped to the soxr quality of about
    /// the same cost; `notes` says so). nil: not a converter name.
    public static func parseConverter(_ value: String, notes: inout [String]) -> ResamplerSettings? {
        // Words, so spaces around and between them do not matter ("soxr  very high").
        let words = value.lowercased().split(separator: " ")
        let lowered = words.joined(separator: " ")
        if words.first == "soxr" {
            if words.count == 1 { return .standard }
            return Quality(rawValue: words.dropFirst().joined(separator: " ")).map { ResamplerSettings(quality: $0, threads: 1) }
        }
        let libsamplerate: [(names: [String], quality: Quality)] = [
            (["0", "best sinc interpolator"], .veryHigh),
            (["1", "medium sinc interpolator"], .high),
            (["2", "fastest sinc interpolator"], .medium),
            (["3", "zero order hold", "4", "linear interpolator", "internal"], .quick),
        ]
        guard let match = libsamplerate.first(where: { $0.names.contains(lowered) }) else { return nil }
        notes.append("samplerate_converter \"\(value)\": Nimbus resamples with libsoxr; using quality \"\(match.quality.rawValue)\"")
        return ResamplerSettings(quality: match.quality, threads: 1)
    }
}
