import CEBUR128
import NimbusSupport

/// A song that cannot be opened or decoded, a format libebur128 refuses.
public typealias AnalysisError = DomainError<AnalysisDomain>
public enum AnalysisDomain {}

/// libebur128 for one song: interleaved float frames in, loudness out. Histogram mode keeps the
/// state a fixed few kilobytes however long the song is, and lets an album's songs be gated
/// together (`album(of:)`) exactly as one long file would be, as loudgain's `-a` does.
public final class LoudnessMeter {
    let state: UnsafeMutablePointer<ebur128_state>
    public let channels: Int

    public init(sampleRate: UInt32, channels: Int) throws(AnalysisError) {
        let mode = Int32(EBUR128_MODE_I.rawValue | EBUR128_MODE_LRA.rawValue | EBUR128_MODE_SAMPLE_PEAK.rawValue
            | EBUR128_MODE_TRUE_PEAK.rawValue | EBUR128_MODE_HISTOGRAM.rawValue)
        guard channels > 0, sampleRate > 0, let state = ebur128_init(UInt32(channels), UInt(sampleRate), mode) else {
            throw AnalysisError("libebur128 refuses \(channels) channels at \(sampleRate) Hz")
        }
        self.state = state
        self.channels = channels
        // 5.1 in WAVE order: the LFE channel does not count (ITU-R BS.1770), as in loudgain.
        if channels == 6 { ebur128_set_channel(state, 3, Int32(EBUR128_UNUSED.rawValue)) }
        // A mono file is one channel, counted once, as loudgain and rsgain measure it (not
        // BS.1770's dual mono): the gains then match the tags those tools write.
    }

    deinit {
        var pointer: UnsafeMutablePointer<ebur128_state>? = state
        ebur128_destroy(&pointer)
    }

    /// `samples`: whole interleaved frames.
    public func add(_ samples: UnsafeBufferPointer<Float>) {
        guard let base = samples.baseAddress, samples.count >= channels else { return }
        ebur128_add_frames_float(state, base, samples.count / channels)
    }

    public var loudness: Loudness {
        var integrated = 0.0, range = 0.0
        ebur128_loudness_global(state, &integrated)
        ebur128_loudness_range(state, &range)
        var samplePeak = 0.0, truePeak = 0.0
        for channel in 0..<channels {
            var value = 0.0
            if ebur128_sample_peak(state, UInt32(channel), &value) == 0 { samplePeak = max(samplePeak, value) }
            if ebur128_true_peak(state, UInt32(channel), &value) == 0 { truePeak = max(truePeak, value) }
        }
        return Loudness(integrated: integrated.isFinite ? integrated : nil, range: range.isFinite ? range : 0, samplePeak: samplePeak, truePeak: truePeak)
    }

    /// An album's loudness: its songs gated together; its range over all their blocks; the
    /// largest peaks.
    public static func album(of meters: [LoudnessMeter]) -> Loudness {
        var states: [UnsafeMutablePointer<ebur128_state>?] = meters.map(\.state)
        var integrated = 0.0, range = 0.0
        ebur128_loudness_global_multiple(&states, states.count, &integrated)
        ebur128_loudness_range_multiple(&states, states.count, &range)
        let tracks = meters.map(\.loudness)
        return Loudness(
            integrated: integrated.isFinite ? integrated : nil, range: range.isFinite ? range : 0,
            samplePeak: tracks.map(\.samplePeak).max() ?? 0, truePeak: tracks.map(\.truePeak).max() ?? 0)
    }
}
