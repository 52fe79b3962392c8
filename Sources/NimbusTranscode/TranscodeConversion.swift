import NimbusModel
import NimbusOutput

/// The decoder's PCM made into what an encoder takes: at most two channels in floats, the
/// rate changed by libswresample (`RateChanger`), then the encoder's sample format (16 bits
/// dithered for LAME) by the same `PCMConverter` playback uses. A song already at the
/// encoder's rate takes one `PCMConverter` step, as before.
final class TranscodeConversion {
    private enum Path {
        case direct(PCMConverter)
        /// To floats at the song's rate, the rate change, then the encoder's format if not floats.
        case changed(toFloats: PCMConverter, rate: RateChanger, toOutput: PCMConverter?)
    }

    private let path: Path
    private var resampled: [Float] = []

    init(from input: AudioFormat, to output: AudioFormat) throws(RateChanger.Failure) {
        guard input.sampleRate != output.sampleRate else {
            path = .direct(PCMConverter(from: input, to: output))
            return
        }
        let floats = AudioFormat(sampleRate: input.sampleRate, sample: .float, channels: output.channels)
        let changed = AudioFormat(sampleRate: output.sampleRate, sample: .float, channels: output.channels)
        path = .changed(
            toFloats: PCMConverter(from: input, to: floats),
            rate: try RateChanger(from: input.sampleRate, to: output.sampleRate, channels: Int(output.channels)),
            toOutput: changed == output ? nil : PCMConverter(from: changed, to: output))
    }

    /// Converts one decoded chunk; `body` gets the result, valid until the next call.
    func convert(_ pcm: UnsafeRawBufferPointer, _ body: (UnsafeRawBufferPointer) throws -> Void) rethrows {
        switch path {
        case .direct(let converter):
            try converter.convert(pcm, volume: 100, body)
        case .changed(let toFloats, let rate, let toOutput):
            resampled.removeAll(keepingCapacity: true)
            toFloats.convert(pcm, volume: 100) { floats in
                _ = rate.process(floats.bindMemory(to: Float.self), into: &resampled)
            }
            try hand(toOutput, body)
        }
    }

    /// What the rate change still holds at the end of the song.
    func flush(_ body: (UnsafeRawBufferPointer) throws -> Void) rethrows {
        switch path {
        case .direct(let converter):
            try converter.flush(volume: 100, body)
        case .changed(_, let rate, let toOutput):
            resampled.removeAll(keepingCapacity: true)
            rate.flush(into: &resampled)
            try hand(toOutput, body)
        }
    }

    private func hand(_ toOutput: PCMConverter?, _ body: (UnsafeRawBufferPointer) throws -> Void) rethrows {
        guard !resampled.isEmpty else { return }
        try resampled.withUnsafeBytes { floats in
            if let toOutput { try toOutput.convert(floats, volume: 100, body) } else { try body(floats) }
        }
    }
}
