import NimbusModel

/// The sample-format conversions the chain, the crossfade mixer and the fade source share.
extension FilterChain {
    /// Appends `frames` frames of `pcm` as floats in -1…1. Written through pointers: appending
    /// sample by sample cost more than the mixing a crossfade does with the result.
    public static func toFloat(_ pcm: UnsafeRawBufferPointer, format: AudioFormat, frames: Int, into floats: inout [Float]) {
        let count = frames * Int(format.channels)
        guard format.sample != .dsd, count > 0 else { return }
        let start = floats.count
        floats.appendZeros(count)
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

    /// Appends `samples` in `format`, rounded and clipped; with `dither`, 8- and 16-bit
    /// samples get TPDF dither before rounding (the caller decides whether bits are cut).
    public static func fromFloat(_ samples: [Float], format: AudioFormat, into bytes: inout [UInt8], dither: UnsafeMutablePointer<Dither>? = nil) {
        samples.withUnsafeBufferPointer { fromFloat($0, format: format, into: &bytes, dither: dither) }
    }

    public static func fromFloat(
        _ input: UnsafeBufferPointer<Float>, format: AudioFormat, into bytes: inout [UInt8], dither: UnsafeMutablePointer<Dither>? = nil
    ) {
        guard format.sample != .dsd, !input.isEmpty else { return }
        let start = bytes.count
        bytes.appendZeros(input.count * format.sample.bytes)
        func clamp(_ value: Float, _ scale: Float) -> Float { max(-scale, min(scale - 1, (value * scale).rounded())) }
        bytes.withUnsafeMutableBytes { all in
            let raw = UnsafeMutableRawBufferPointer(rebasing: all[start...])
            switch format.sample {
            case .s8:
                for (index, sample) in input.enumerated() {
                    let noise = dither?.pointee.next() ?? 0
                    raw[index] = UInt8(bitPattern: Int8(clamp(sample + noise / 128, 128)))
                }
            case .s16 where dither != nil:
                let out = raw.bindMemory(to: Int16.self)
                for (index, sample) in input.enumerated() {
                    out[index] = Int16(max(-32768, min(32767, (sample * 32768 + dither!.pointee.next()).rounded()))).littleEndian
                }
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

    /// Mono → stereo duplicates; stereo → mono averages; otherwise channels are dropped or
    /// padded with silence. Appended to `output`, which keeps its room between chunks.
    static func route(_ samples: UnsafeBufferPointer<Float>, from input: Int, to output: Int, into result: inout [Float]) {
        let frames = samples.count / input
        let start = result.count
        result.appendZeros(frames * output)
        result.withUnsafeMutableBufferPointer { all in
            let out = UnsafeMutableBufferPointer(rebasing: all[start...])
            for frame in 0..<frames {
                let base = frame * input, to = frame * output
                if input == 1 {
                    for channel in 0..<output { out[to + channel] = samples[base] }
                } else if output == 1 {
                    var sum: Float = 0
                    for channel in 0..<input { sum += samples[base + channel] }
                    out[to] = sum / Float(input)
                } else {
                    for channel in 0..<output { out[to + channel] = channel < input ? samples[base + channel] : 0 }
                }
            }
        }
    }
}
