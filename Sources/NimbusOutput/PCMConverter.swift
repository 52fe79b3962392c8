import Foundation
import NimbusModel

/// Turns decoder PCM into what an output opened: sample format, channel count, sample rate,
/// and software volume. Identical formats at full volume pass through untouched; anything
/// else goes through floats. Buffers are kept between calls so steady playback does not
/// allocate.
public final class PCMConverter {
    public let input: AudioFormat
    public let output: AudioFormat
    private let resampler: Resampler?
    private var floats: [Float] = []
    private var resampled: [Float] = []
    private var bytes: [UInt8] = []

    public init(from input: AudioFormat, to output: AudioFormat) {
        self.input = input
        self.output = output
        resampler = input.sampleRate == output.sampleRate
            ? nil : Resampler(from: input.sampleRate, to: output.sampleRate, channels: Int(output.channels))
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
    public func convert(_ pcm: UnsafeRawBufferPointer, volume: Int, _ body: (UnsafeRawBufferPointer) throws -> Void) rethrows {
        if isPassThrough && volume >= 100 {
            try body(pcm)
            return
        }
        if isPassThrough && input.sample == .s16 {
            // The common software-volume case: scale 16-bit samples in one pass, no floats.
            let gain = Int32(Self.gain(forVolume: volume) * 65536)
            bytes.removeAll(keepingCapacity: true)
            bytes.append(contentsOf: pcm)
            bytes.withUnsafeMutableBytes { raw in
                let samples = raw.bindMemory(to: Int16.self)
                for index in samples.indices { samples[index] = Int16((Int32(samples[index]) * gain) >> 16) }
            }
            try bytes.withUnsafeBytes { try body($0) }
            return
        }
        let frames = pcm.count / input.frameBytes
        floats.removeAll(keepingCapacity: true)
        Self.toFloat(pcm, format: input, frames: frames, into: &floats)
        if input.channels != output.channels {
            floats = Self.remap(floats, from: Int(input.channels), to: Int(output.channels))
        }
        let gain = Self.gain(forVolume: volume)
        bytes.removeAll(keepingCapacity: true)
        if let resampler {
            resampled.removeAll(keepingCapacity: true)
            floats.withUnsafeBufferPointer { _ = resampler.process($0, into: &resampled) }
            if gain != 1 { for index in resampled.indices { resampled[index] *= gain } }
            Self.fromFloat(resampled, format: output, into: &bytes)
        } else {
            if gain != 1 { for index in floats.indices { floats[index] *= gain } }
            Self.fromFloat(floats, format: output, into: &bytes)
        }
        try bytes.withUnsafeBytes { try body($0) }
    }

    /// Appends `frames` frames of `pcm` as floats in -1…1. Written through pointers: appending
    /// sample by sample cost more than the mixing a crossfade does with the result.
    public static func toFloat(_ pcm: UnsafeRawBufferPointer, format: AudioFormat, frames: Int, into floats: inout [Float]) {
        let count = frames * Int(format.channels)
        guard format.sample != .dsd, count > 0 else { return }
        let start = floats.count
        floats.append(contentsOf: repeatElement(0, count: count))
        floats.withUnsafeMutableBufferPointer { all in
            let out = UnsafeMutableBufferPointer(rebasing: all[start..<(start + count)])
            switch format.sample {
            case .s8:
                for index in 0..<count { out[index] = Float(Int8(bitPattern: pcm[index])) / 128 }
            case .s16:
                let samples = pcm.bindMemory(to: Int16.self)
                for index in 0..<count { out[index] = Float(samples[index]) * (1 / 32768) }
            case .s24:
                let samples = pcm.bindMemory(to: Int32.self)
                for index in 0..<count { out[index] = Float(samples[index]) * (1 / 8_388_608) }
            case .s32:
                let samples = pcm.bindMemory(to: Int32.self)
                for index in 0..<count { out[index] = Float(samples[index]) * (1 / 2_147_483_648) }
            case .float:
                let samples = pcm.bindMemory(to: Float.self)
                for index in 0..<count { out[index] = samples[index] }
            case .dsd:
                break
            }
        }
    }

    /// Appends `samples` in `format`, rounded and clipped.
    public static func fromFloat(_ samples: [Float], format: AudioFormat, into bytes: inout [UInt8]) {
        guard format.sample != .dsd, !samples.isEmpty else { return }
        let start = bytes.count
        bytes.append(contentsOf: repeatElement(0, count: samples.count * format.sample.bytes))
        func clamp(_ value: Float, _ scale: Float) -> Float { max(-scale, min(scale - 1, (value * scale).rounded())) }
        samples.withUnsafeBufferPointer { input in
            bytes.withUnsafeMutableBytes { all in
                let raw = UnsafeMutableRawBufferPointer(rebasing: all[start...])
                switch format.sample {
                case .s8:
                    for (index, sample) in input.enumerated() { raw[index] = UInt8(bitPattern: Int8(clamp(sample, 128))) }
                case .s16:
                    let out = raw.bindMemory(to: Int16.self)
                    for (index, sample) in input.enumerated() { out[index] = Int16(clamp(sample, 32768)).littleEndian }
                case .s24:
                    let out = raw.bindMemory(to: Int32.self)
                    for (index, sample) in input.enumerated() { out[index] = Int32(clamp(sample, 8_388_608)).littleEndian }
                case .s32:
                    let out = raw.bindMemory(to: Int32.self)
                    for (index, sample) in input.enumerated() {
                        out[index] = Int32(max(-2_147_483_648, min(2_147_483_647, Double(sample) * 2_147_483_648))).littleEndian
                    }
                case .float:
                    let out = raw.bindMemory(to: Float.self)
                    for (index, sample) in input.enumerated() { out[index] = sample }
                case .dsd:
                    break
                }
            }
        }
    }

    /// Mono → stereo duplicates; stereo → mono averages; otherwise channels are dropped or
    /// padded with silence.
    static func remap(_ samples: [Float], from input: Int, to output: Int) -> [Float] {
        let frames = samples.count / input
        var result: [Float] = []
        result.reserveCapacity(frames * output)
        for frame in 0..<frames {
            let base = frame * input
            if input == 1 {
                for _ in 0..<output { result.append(samples[base]) }
            } else if output == 1 {
                var sum: Float = 0
                for channel in 0..<input { sum += samples[base + channel] }
                result.append(sum / Float(input))
            } else {
                for channel in 0..<output { result.append(channel < input ? samples[base + channel] : 0) }
            }
        }
        return result
    }
}
