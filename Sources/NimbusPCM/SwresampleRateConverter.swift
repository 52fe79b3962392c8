import CFFmpeg
import NimbusSupport

/// A transcode's sample-rate change (44.1 kHz songs to Opus's 48 kHz) through FFmpeg's
/// libswresample (`RateConversion.swresample`), on interleaved floats. Not libsoxr as playback uses: at "medium" libsoxr
/// took 0.48 s of CPU per five minutes of stereo where libswresample takes 0.19 s, which put a
/// whole Opus transcode 10% behind the `ffmpeg` command line doing the same encode (that
/// is what it runs). libswresample's default filter (32 taps per phase, Kaiser window,
/// cutoff at 97% of Nyquist, stop band near −90 dB) is far below what a 128 kbit/s encoder
/// keeps, and it is the same conversion an `ffmpeg -c:a libopus` transcode gets; playback and
/// the httpd outputs, where the bits are kept, stay on libsoxr.
public final class SwresampleRateConverter: RateConverter {
    public let channels: Int
    private var context: OpaquePointer?

    public typealias Failure = DomainError<SwresampleRateConverter>

    public init(from inputRate: UInt32, to outputRate: UInt32, channels: Int) throws(Failure) {
        self.channels = channels
        // Two layouts, though equal: the call takes both by pointer.
        var outputLayout = AVChannelLayout()
        var inputLayout = AVChannelLayout()
        av_channel_layout_default(&outputLayout, Int32(channels))
        av_channel_layout_default(&inputLayout, Int32(channels))
        defer {
            av_channel_layout_uninit(&outputLayout)
            av_channel_layout_uninit(&inputLayout)
        }
        var created: OpaquePointer?
        let status = swr_alloc_set_opts2(
            &created, &outputLayout, AV_SAMPLE_FMT_FLT, Int32(outputRate), &inputLayout, AV_SAMPLE_FMT_FLT, Int32(inputRate),
            0, nil)
        context = created
        guard status >= 0, let created, swr_init(created) >= 0 else {
            swr_free(&context)  // nil after it, so `deinit` has nothing left to free
            throw Failure("cannot change \(inputRate) Hz to \(outputRate) Hz for \(channels) channels")
        }
    }

    deinit { swr_free(&context) }

    /// Converts `input` (interleaved) and appends the result to `output`; returns frames added.
    @discardableResult
    public func process(_ input: UnsafeBufferPointer<Float>, into output: inout [Float]) -> Int {
        guard let base = input.baseAddress, input.count >= channels else { return 0 }
        return run(UnsafeRawPointer(base).assumingMemoryBound(to: UInt8.self), frames: input.count / channels, into: &output)
    }

    /// Appends what the filter still holds, as if the input had ended: the song's last
    /// milliseconds, so the transcode is as long as the song.
    @discardableResult
    public func flush(into output: inout [Float]) -> Int {
        var added = 0
        while true {
            let produced = run(nil, frames: 0, into: &output)
            added += produced
            if produced == 0 { return added }
        }
    }

    /// Drops what the filter holds: `swr_init` on a made context starts it afresh.
    public func reset() {
        if let context { _ = swr_init(context) }
    }

    private func run(_ input: UnsafePointer<UInt8>?, frames: Int, into output: inout [Float]) -> Int {
        guard let context else { return 0 }
        // Room for everything the chunk can produce plus what the filter holds back.
        let room = swr_get_out_samples(context, Int32(frames))
        guard room > 0 else { return 0 }
        let start = output.count
        output.appendZeros(Int(room) * channels)
        var produced: Int32 = 0
        output.withUnsafeMutableBufferPointer { buffer in
            var target: UnsafeMutablePointer<UInt8>? = UnsafeMutableRawPointer(buffer.baseAddress! + start)
                .assumingMemoryBound(to: UInt8.self)
            var source: UnsafePointer<UInt8>? = input
            produced = withUnsafeMutablePointer(to: &target) { targets in
                withUnsafeMutablePointer(to: &source) { sources in
                    swr_convert(context, targets, room, input == nil ? nil : sources, Int32(frames))
                }
            }
        }
        let kept = max(0, Int(produced))
        output.removeLast((Int(room) - kept) * channels)
        return kept
    }
}
