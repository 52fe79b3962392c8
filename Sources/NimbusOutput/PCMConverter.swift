import Foundation
import NimbusModel

/// Turns decoder PCM into what an output opened: sample format, channel count, sample rate
/// (libsoxr), the output's sound chain (equalizer, balance, crossfeed) and software volume,
/// with TPDF dither whenever that cuts bits to 16 or 8. Identical formats at full volume with
/// no chain pass through untouched (bit-perfect); anything else goes through floats. Buffers
/// are kept between calls so steady playback does not allocate.
public final class PCMConverter {
    public let input: AudioFormat
    public let output: AudioFormat
    private let resampler: Resampler?
    private var floats: [Float] = []
    private var resampled: [Float] = []
    private var bytes: [UInt8] = []
    private var dither = Dither()

    public init(from input: AudioFormat, to output: AudioFormat, settings: ResamplerSettings = .current) {
        self.input = input
        self.output = output
        resampler = input.sampleRate == output.sampleRate
            ? nil : Resampler(from: input.sampleRate, to: output.sampleRate, channels: Int(output.channels), settings: settings)
    }

    /// MPD's software volume curve: exponential, so the slider feels even across its range.
    public static func gain(forVolume volume: Int) -> Float {
        if volume >= 100 { return 1 }
        if volume <= 0 { return 0 }
        return Float((exp(Double(volume) / 25) - 1) / (54.598150033144236 - 1))
    }

    public var isPassThrough: Bool { input == output }

    public func reset() { resampler?.reset() }

    /// Converts `pcm`; the result stays valid until the next call.
    public func convert(
        _ pcm: UnsafeRawBufferPointer, volume: Int, chain: SoundChain? = nil, _ body: (UnsafeRawBufferPointer) throws -> Void
    ) rethrows {
        let shaping = chain?.isActive ?? false
        if isPassThrough && volume >= 100 && !shaping {
            try body(pcm)
            return
        }
        if isPassThrough && input.sample == .s16 && !shaping {
            try scaleSixteenBits(pcm, volume: volume, body)
            return
        }
        let frames = pcm.count / input.frameBytes
        floats.removeAll(keepingCapacity: true)
        Self.toFloat(pcm, format: input, frames: frames, into: &floats)
        if input.channels != output.channels {
            floats = Self.remap(floats, from: Int(input.channels), to: Int(output.channels))
        }
        if let resampler {
            resampled.removeAll(keepingCapacity: true)
            floats.withUnsafeBufferPointer { _ = resampler.process($0, into: &resampled) }
            try finish(&resampled, volume: volume, chain: chain, body)
        } else {
            try finish(&floats, volume: volume, chain: chain, body)
        }
    }

    /// What the resampler still holds at the end of a stream (a transcode's last frames, the
    /// song before a format change), converted as `convert` would; nothing without one.
    public func flush(volume: Int, chain: SoundChain? = nil, _ body: (UnsafeRawBufferPointer) throws -> Void) rethrows {
        guard let resampler else { return }
        resampled.removeAll(keepingCapacity: true)
        guard resampler.flush(into: &resampled) > 0 else { return }
        try finish(&resampled, volume: volume, chain: chain, body)
    }

    /// The float stages after the rate change: the chain at the output's rate, volume, then
    /// the output's sample format, dithered only where something changed the samples.
    private func finish(
        _ samples: inout [Float], volume: Int, chain: SoundChain?, _ body: (UnsafeRawBufferPointer) throws -> Void
    ) rethrows {
        let shaping = chain?.isActive ?? false
        if shaping, let chain {
            samples.withUnsafeMutableBufferPointer { chain.process($0, channels: Int(output.channels), sampleRate: output.sampleRate) }
        }
        let gain = Self.gain(forVolume: volume)
        if gain != 1 { for index in samples.indices { samples[index] *= gain } }
        let exact = resampler == nil && gain == 1 && !shaping && input.sample.precisionBits <= output.sample.precisionBits
            && !(input.channels > 1 && output.channels == 1)
        bytes.removeAll(keepingCapacity: true)
        if output.sample.precisionBits <= 16 && !exact {
            withUnsafeMutablePointer(to: &dither) { Self.fromFloat(samples, format: output, into: &bytes, dither: $0) }
        } else {
            Self.fromFloat(samples, format: output, into: &bytes)
        }
        try bytes.withUnsafeBytes { try body($0) }
    }

    /// The common software-volume case: 16-bit samples scaled in one integer pass, no
    /// floats, with TPDF dither (in 1/65536 LSB) before the rounding shift.
    private func scaleSixteenBits(_ pcm: UnsafeRawBufferPointer, volume: Int, _ body: (UnsafeRawBufferPointer) throws -> Void) rethrows {
        let gain = Int32(Self.gain(forVolume: volume) * 65536)
        bytes.removeAll(keepingCapacity: true)
        bytes.append(contentsOf: pcm)
        var noise = dither
        bytes.withUnsafeMutableBytes { raw in
            let samples = raw.bindMemory(to: Int16.self)
            for index in samples.indices {
                // Silence stays silence: no dither on samples that scale to nothing.
                guard gain > 0 else { samples[index] = 0; continue }
                let scaled = (Int32(samples[index]) * gain + noise.nextFixed() + 32768) >> 16
                samples[index] = Int16(max(-32768, min(32767, scaled)))
            }
        }
        dither = noise
        try bytes.withUnsafeBytes { try body($0) }
    }
}
