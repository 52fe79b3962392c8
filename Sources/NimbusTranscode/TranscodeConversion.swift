import NimbusModel
import NimbusOutput

/// The decoder's PCM made into what an encoder takes: at most two channels in floats, the
/// rate changed by libswresample (`RateChanger`), then the encoder's sample format (16 bits
/// dithered for LAME) by the same `PCMConverter` playback uses. A song already at the
/// encoder's rate takes one `PCMConverter` step, as before.
final class TranscodeConversion {
    private let direct: PCMConverter?
    private let toFloats: PCMConverter?
    private let rate: RateChanger?
    private let toOutput: PCMConverter?
    private var resampled: [Float] = []

    init(from input: AudioFormat, to output: AudioFormat) throws(RateChanger.Failure) {
        guard input.sampleRate != output.sampleRate else {
            direct = PCMConverter(from: input, to: output)
            toFloats = nil
            rate = nil
            toOutput = nil
            return
        }
        direct = nil
        let floats = AudioFormat(sampleRate: input.sampleRate, sample: .float, channels: output.channels)
        toFloats = PCMConverter(from: input, to: floats)
        rate = try RateChanger(from: input.sampleRate, to: output.sampleRate, channels: Int(output.channels))
        let changed = AudioFormat(sampleRate: output.sampleRate, sample: .float, channels: output.channels)
        toOutput = changed == output ? nil : PCMConverter(from: changed, to: output)
    }

    /// Converts one decoded chunk; `body` gets the result, valid until the next call.
    func convert(_ pcm: UnsafeRawBufferPointer, _ body: (UnsafeRawBufferPointer) throws -> Void) rethrows {
        if let direct { return try direct.convert(pcm, volume: 100, body) }
        guard let toFloats, let rate else { return }
        resampled.removeAll(keepingCapacity: true)
        toFloats.convert(pcm, volume: 100) { floats in
            _ = rate.process(floats.bindMemory(to: Float.self), into: &resampled)
        }
        try hand(body)
    }

    /// What the rate change still holds at the end of the song.
    func flush(_ body: (UnsafeRawBufferPointer) throws -> Void) rethrows {
        if let direct { return try direct.flush(volume: 100, body) }
        guard let rate else { return }
        resampled.removeAll(keepingCapacity: true)
        guard rate.flush(into: &resampled) > 0 else { return }
        try hand(body)
    }

    private func hand(_ body: (UnsafeRawBufferPointer) throws -> Void) rethrows {
        guard !resampled.isEmpty else { return }
        try resampled.withUnsafeBytes { floats in
            if let toOutput { try toOutput.convert(floats, volume: 100, body) } else { try body(floats) }
        }
    }
}
