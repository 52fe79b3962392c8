import CSoxr
import NimbusModel

/// Sample-rate conversion through libsoxr, on interleaved floats, keeping its state between
/// calls so a stream converts chunk by chunk without clicks at the joins. libsoxr because a
/// hand-written short filter cannot come near it: at "high" its images and aliases are below
/// −120 dB and the pass band is flat to 91% of the new Nyquist frequency, and it is what MPD's
/// soxr plugin and `sox rate` run, so the figures can be compared one to one.
public final class SoxrRateConverter: RateConverter {
    public let channels: Int
    public let inputRate: UInt32
    public let outputRate: UInt32
    private let handle: soxr_t

    public init(from inputRate: UInt32, to outputRate: UInt32, channels: Int, settings: ResamplerSettings = .standard) {
        self.channels = channels
        self.inputRate = inputRate
        self.outputRate = outputRate
        var io = soxr_io_spec(SOXR_FLOAT32_I, SOXR_FLOAT32_I)
        var quality = soxr_quality_spec(settings.quality.recipe, 0)
        var runtime = soxr_runtime_spec(UInt32(max(0, settings.threads)))
        var error: soxr_error_t?
        let created = soxr_create(Double(inputRate), Double(outputRate), UInt32(channels), &error, &io, &quality, &runtime)
        // soxr_create fails only for impossible arguments (a zero rate or channel count), which
        // AudioFormat never holds; crashing here beats playing silence nobody can explain.
        guard let created, error == nil else {
            fatalError("soxr_create(\(inputRate) → \(outputRate), \(channels) ch): \(error.map { String(cString: $0) } ?? "failed")")
        }
        handle = created
    }

    deinit { soxr_delete(handle) }

    /// Forgets buffered input (a seek, a new song of another format).
    public func reset() { _ = soxr_clear(handle) }

    /// Output frames the filter still holds (its latency).
    public var delayFrames: Double { soxr_delay(handle) }

    /// Converts `input` (interleaved) and appends the result to `output`; returns frames added.
    @discardableResult
    public func process(_ input: UnsafeBufferPointer<Float>, into output: inout [Float]) -> Int {
        let frames = input.count / channels
        return run(input.baseAddress, frames: frames, into: &output)
    }

    /// Appends what the filter still holds, as if the input had ended (end of a transcode,
    /// the last song before a format change); the resampler starts afresh after it.
    @discardableResult
    public func flush(into output: inout [Float]) -> Int {
        let added = run(nil, frames: 0, into: &output)
        reset()
        return added
    }

    private func run(_ input: UnsafePointer<Float>?, frames: Int, into output: inout [Float]) -> Int {
        var consumed = 0
        var added = 0
        var offset = 0
        repeat {
            // Room for everything the chunk can produce plus what the filter holds back.
            let room = Int(Double(frames - offset) * Double(outputRate) / Double(inputRate)) + 64 + Int(delayFrames)
            let start = output.count
            output.appendZeros(room * channels)
            var done = 0
            var produced = 0
            output.withUnsafeMutableBufferPointer { buffer in
                let target = buffer.baseAddress! + start
                _ = soxr_process(
                    handle, input.map { $0 + offset * channels }, input == nil ? 0 : frames - offset, &done, target, room,
                    &produced)
            }
            output.removeLast((room - produced) * channels)
            consumed = done
            offset += consumed
            added += produced
            // A flush may need more than one call; a chunk is done when all input is taken.
            if input == nil ? produced < room : offset >= frames || (done == 0 && produced == 0) { break }
        } while true
        return added
    }
}
