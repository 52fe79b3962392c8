import NimbusModel

/// A sample-rate conversion on interleaved floats that keeps its state between calls, so a
/// stream converts chunk by chunk without clicks at the joins (MPD's `PcmResampler`).
public protocol RateConverter: AnyObject {
    var channels: Int { get }
    /// Converts `input` (interleaved) and appends the result to `output`; returns frames added.
    @discardableResult func process(_ input: UnsafeBufferPointer<Float>, into output: inout [Float]) -> Int
    /// Appends what the filter still holds, as if the input had ended; it starts afresh after.
    @discardableResult func flush(into output: inout [Float]) -> Int
    /// Forgets buffered input (a seek, a new song).
    func reset()
}

/// Which converter a conversion uses, chosen where it is made and passed down (no process-wide
/// setting): libsoxr with MPD's `resampler` settings for everything heard (outputs, crossfades,
/// the httpd and fifo streams), libswresample for the phones' lossy transcodes, as `ffmpeg`
/// itself converts (see `SwresampleRateConverter`).
public enum RateConversion: Equatable, Sendable {
    case soxr(ResamplerSettings)
    case swresample

    /// MPD's default: libsoxr at "high" on one thread.
    public static let standard = RateConversion.soxr(.standard)

    public func make(from inputRate: UInt32, to outputRate: UInt32, channels: Int) -> any RateConverter {
        switch self {
        case .soxr(let settings):
            return SoxrRateConverter(from: inputRate, to: outputRate, channels: channels, settings: settings)
        case .swresample:
            // libswresample refuses only rates or layouts no AudioFormat holds; libsoxr then.
            return (try? SwresampleRateConverter(from: inputRate, to: outputRate, channels: channels))
                ?? SoxrRateConverter(from: inputRate, to: outputRate, channels: channels, settings: .standard)
        }
    }
}
