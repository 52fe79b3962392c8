import Foundation
import NimbusModel

/// One output's sound path, MPD's filter chain (`src/output/Init.cxx`): the song's samples
/// to floats, the output's configured `filters` at the song's format, channel routing and the
/// rate change to the device's format (`RateConverter`), the sound stage at the device's rate
/// (equalizer, balance, crossfeed: `SoundChain`), software volume, and the device's sample
/// format with TPDF dither whenever that cuts bits to 16 or 8. Identical formats at full
/// volume with no active stage pass through untouched (bit-perfect). Every buffer is kept
/// between calls, so steady playback allocates nothing.
///
/// Without filters it is a plain format conversion (`PCMConverter`), as the crossfade mixer,
/// fades and transcodes use it.
public final class FilterChain {
    public let input: AudioFormat
    public let output: AudioFormat
    private let rate: (any RateConverter)?
    private let filters: [any Filter]
    private let sound: (any Filter)?
    /// The float format after the configured filters, which routing and the rate change
    /// take to the device's.
    private let filtered: FloatFormat
    private var floats: [Float] = []
    private var routed: [Float] = []
    private var resampled: [Float] = []
    private var bytes: [UInt8] = []
    private var dither = Dither()

    /// `filters` run at the song's format, `sound` at the device's, both before volume.
    public init(
        from input: AudioFormat, to output: AudioFormat, rates: RateConversion = .standard, filters: [any Filter] = [],
        sound: (any Filter)? = nil
    ) {
        self.input = input
        self.output = output
        var format = FloatFormat(input)
        for filter in filters { format = filter.open(format) }
        filtered = format
        self.filters = filters
        rate = format.sampleRate == output.sampleRate ? nil : rates.make(from: format.sampleRate, to: output.sampleRate, channels: Int(output.channels))
        if let sound { _ = sound.open(FloatFormat(output)) }
        self.sound = sound
        reserve(frames: Self.reservedFrames)
    }

    /// Frames of one call the buffers are made for at once (a pipe chunk is at most 4,096
    /// at 192 kHz stereo): a buffer grown while playing is an allocation on the output thread.
    static let reservedFrames = 16384

    private func reserve(frames: Int) {
        let inputChannels = Int(input.channels), outputChannels = Int(output.channels)
        let ratio = Double(output.sampleRate) / Double(max(filtered.sampleRate, 1))
        let outputFrames = Int(Double(frames) * max(ratio, 1)) + 4096
        floats.reserveCapacity(frames * max(inputChannels, filtered.channels))
        routed.reserveCapacity(frames * outputChannels)
        resampled.reserveCapacity(outputFrames * outputChannels)
        bytes.reserveCapacity(outputFrames * outputChannels * max(output.sample.bytes, input.sample.bytes))
    }

    /// MPD's software volume curve: exponential, so the slider feels even across its range.
    public static func gain(forVolume volume: Int) -> Float {
        if volume >= 100 { return 1 }
        if volume <= 0 { return 0 }
        return Float((exp(Double(volume) / 25) - 1) / (54.598150033144236 - 1))
    }

    public var isPassThrough: Bool { input == output && filters.isEmpty }

    public func reset() {
        rate?.reset()
        for filter in filters { filter.reset() }
        sound?.reset()
    }

    private var shaping: Bool { sound?.isActive ?? false }

    /// Converts `pcm`; the result stays valid until the next call.
    public func convert(_ pcm: UnsafeRawBufferPointer, volume: Int, _ body: (UnsafeRawBufferPointer) throws -> Void) rethrows {
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
        try floats.withUnsafeMutableBufferPointer { samples in
            var samples = samples
            for filter in filters where filter.isActive { samples = filter.filter(samples) }
            try deviceSide(samples, volume: volume, body)
        }
    }

    /// What the stages and the rate change still hold at the end of a stream (a transcode's
    /// last frames, the song before a format change), converted as `convert` would.
    public func flush(volume: Int, _ body: (UnsafeRawBufferPointer) throws -> Void) rethrows {
        for (index, filter) in filters.enumerated() where filter.isActive {
            var held = filter.flush()
            guard held.count > 0 else { continue }
            for later in filters[(index + 1)...] where later.isActive { held = later.filter(held) }
            try deviceSide(held, volume: volume, body)
        }
        guard let rate else { return }
        resampled.removeAll(keepingCapacity: true)
        guard rate.flush(into: &resampled) > 0 else { return }
        try finish(&resampled, volume: volume, body)
    }

    /// Routing to the device's channels, the rate change, then `finish`. The samples are the
    /// chain's own or a stage's output, so they may be changed in place.
    private func deviceSide(_ samples: UnsafeMutableBufferPointer<Float>, volume: Int, _ body: (UnsafeRawBufferPointer) throws -> Void) rethrows {
        guard filtered.channels != Int(output.channels) else { return try rateAndFinish(samples, volume: volume, body) }
        routed.removeAll(keepingCapacity: true)
        Self.route(UnsafeBufferPointer(samples), from: filtered.channels, to: Int(output.channels), into: &routed)
        try routed.withUnsafeMutableBufferPointer { try rateAndFinish($0, volume: volume, body) }
    }

    private func rateAndFinish(_ samples: UnsafeMutableBufferPointer<Float>, volume: Int, _ body: (UnsafeRawBufferPointer) throws -> Void) rethrows {
        guard let rate else {
            var samples = samples
            return try finish(&samples, volume: volume, body)
        }
        resampled.removeAll(keepingCapacity: true)
        rate.process(UnsafeBufferPointer(samples), into: &resampled)
        try finish(&resampled, volume: volume, body)
    }

    private func finish(_ samples: inout [Float], volume: Int, _ body: (UnsafeRawBufferPointer) throws -> Void) rethrows {
        try samples.withUnsafeMutableBufferPointer { buffer in
            var buffer = buffer
            try finish(&buffer, volume: volume, body)
        }
    }

    /// The device side's float stages: the sound stage at the device's rate, volume, then the
    /// device's sample format, dithered only where something changed the samples.
    private func finish(_ samples: inout UnsafeMutableBufferPointer<Float>, volume: Int, _ body: (UnsafeRawBufferPointer) throws -> Void) rethrows {
        let shaping = self.shaping
        if shaping, let sound { samples = sound.filter(samples) }
        let gain = Self.gain(forVolume: volume)
        if gain != 1 { for index in samples.indices { samples[index] *= gain } }
        let exact = rate == nil && gain == 1 && !shaping && filters.allSatisfy { !$0.isActive }
            && input.sample.precisionBits <= output.sample.precisionBits && !(input.channels > 1 && output.channels == 1)
        bytes.removeAll(keepingCapacity: true)
        if output.sample.precisionBits <= 16 && !exact {
            withUnsafeMutablePointer(to: &dither) { Self.fromFloat(UnsafeBufferPointer(samples), format: output, into: &bytes, dither: $0) }
        } else {
            Self.fromFloat(UnsafeBufferPointer(samples), format: output, into: &bytes)
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

/// A format conversion alone: a `FilterChain` without filters (the crossfade mixer, fades and
/// transcodes use it).
public typealias PCMConverter = FilterChain
