/// MPD's `volume_normalization` (its `normalize` filter, after busybee's AudioCompress): a slow
/// automatic gain that lifts quiet music towards a peak of half of full scale, at most 32×
/// (+30 dB), never below 1×, and never so high that the loudest sample of the last 400 blocks
/// would clip. The gain moves 1/256 of the way to its target per block and ramps within a
/// block, so it rises over seconds and drops at once before a peak.
///
/// MPD runs it on 16-bit samples in its pipe's 4 KiB chunks; here it runs on the float stage
/// in blocks of the same 2,048 samples, so levels over time match MPD's for the same file
/// (a −54 dBFS song reaches about −24 dBFS) without cutting resolution to 16 bits.
public final class NormalizeFilter: Filter {
    static let target: Float = 16384 / 32768
    static let maximumGain: Float = 32
    static let smoothing: Float = 256
    static let blockSamples = 2048
    private static let history = 400

    /// Peaks of the last `history` blocks; allocated once, so `filter` never allocates.
    private let peaks = UnsafeMutableBufferPointer<Float>.allocate(capacity: history)
    private var position = 0
    private var previousGain: Float = 0

    public init() {
        peaks.initialize(repeating: 0)
    }

    deinit { peaks.deallocate() }

    public func open(_ format: FloatFormat) -> FloatFormat {
        reset()
        return format
    }

    public func reset() {
        for index in peaks.indices { peaks[index] = 0 }
        position = 0
        previousGain = 0
    }

    public func filter(_ samples: UnsafeMutableBufferPointer<Float>) -> UnsafeMutableBufferPointer<Float> {
        var start = 0
        while start < samples.count {
            let end = min(samples.count, start + Self.blockSamples)
            process(UnsafeMutableBufferPointer(rebasing: samples[start..<end]))
            start = end
        }
        return samples
    }

    private func process(_ block: UnsafeMutableBufferPointer<Float>) {
        // The smallest peak MPD's integers can hold is one step of 16 bits.
        var peak: Float = 1 / 32768
        var peakPosition = 0
        for index in block.indices where abs(block[index]) > peak {
            peak = abs(block[index])
            peakPosition = index
        }
        position = (position + 1) % Self.history
        peaks[position] = peak
        for old in peaks where old > peak {
            peak = old
            peakPosition = 0
        }
        var current = previousGain
        var gain = (current * (Self.smoothing - 1) + Self.target / peak) / Self.smoothing
        gain = max(1, min(Self.maximumGain, gain))
        var ramp = block.count
        if peak * gain > 1 {
            gain = 1 / peak
            ramp = peakPosition
        }
        previousGain = gain
        ramp = max(1, ramp)
        if current == 0 { current = 1 }
        let step = (gain - current) / Float(ramp)
        for index in block.indices {
            if index < ramp {
                block[index] = max(-1, min(1, block[index] * current))
                current += step
            } else {
                block[index] = max(-1, min(1, block[index] * gain))
            }
        }
    }
}
