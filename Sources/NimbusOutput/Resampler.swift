import Glibc

/// Sample-rate conversion with a windowed-sinc polyphase filter (32 taps, 256 phases,
/// linear interpolation between phases, Blackman window, cutoff lowered when downsampling so
/// nothing aliases). Works on interleaved floats and keeps its history between calls, so a
/// stream can be converted chunk by chunk without clicks at the joins.
public final class Resampler {
    public let channels: Int
    /// Input frames consumed per output frame.
    private let step: Double
    private static let taps = 32
    private static let phases = 256
    private let table: [Float]
    /// Interleaved input frames not yet fully used.
    private var history: [Float]
    /// Position of the next output frame, in frames from the start of `history`.
    private var position: Double

    public init(from inputRate: UInt32, to outputRate: UInt32, channels: Int) {
        self.channels = channels
        step = Double(inputRate) / Double(outputRate)
        let cutoff = min(1.0, Double(outputRate) / Double(inputRate)) * 0.97
        let half = Self.taps / 2
        var table = [Float](repeating: 0, count: (Self.phases + 1) * Self.taps * channels)
        for phase in 0...Self.phases {
            var row = [Double](repeating: 0, count: Self.taps)
            for tap in 0..<Self.taps {
                let distance = Double(phase) / Double(Self.phases) + Double(half - 1 - tap)
                row[tap] = Self.kernel(distance, cutoff: cutoff, half: Double(half))
            }
            let sum = row.reduce(0, +)
            for tap in 0..<Self.taps {
                for channel in 0..<channels { table[(phase * Self.taps + tap) * channels + channel] = Float(row[tap] / sum) }
            }
        }
        self.table = table
        // Start with half a filter of silence so the first output frame is centred on input 0.
        history = [Float](repeating: 0, count: (half - 1) * channels)
        position = Double(half - 1)
    }

    private static func kernel(_ x: Double, cutoff: Double, half: Double) -> Double {
        guard abs(x) < half else { return 0 }
        let angle: Double = Double.pi * x / half
        let window: Double = 0.42 + 0.5 * cos(angle) + 0.08 * cos(2 * angle)
        if x == 0 { return cutoff * window }
        let argument = Double.pi * cutoff * x
        return cutoff * sin(argument) / argument * window
    }

    public func reset() {
        let half = Self.taps / 2
        history = [Float](repeating: 0, count: (half - 1) * channels)
        position = Double(half - 1)
    }

    /// Converts `input` (interleaved) and appends the result to `output`; returns frames added.
    ///
    /// The inner loop is most of a transcode's CPU (a quarter of an Opus encode, measured with
    /// perf), so it works on the interleaved samples as they are: `table` holds each phase's
    /// taps repeated once per channel, and for 1, 2, 4 or 8 channels sixteen lanes at a time
    /// are blended and multiplied, lane `l` belonging to channel `l % channels`.
    @discardableResult
    public func process(_ input: UnsafeBufferPointer<Float>, into output: inout [Float]) -> Int {
        history.append(contentsOf: input)
        let half = Self.taps / 2
        let available = history.count / channels
        let width = Self.taps * channels
        let vectors = 16 % channels == 0 ? width / 16 : 0
        var produced = 0
        output.reserveCapacity(output.count + Int(Double(input.count) / step) + 2 * channels)
        history.withUnsafeBufferPointer { samples in
            table.withUnsafeBufferPointer { table in
                while Int(position) + half < available {
                    let base = Int(position)
                    let phaseExact = (position - Double(base)) * Double(Self.phases)
                    let phase = Int(phaseExact)
                    let blend = Float(phaseExact - Double(phase))
                    let first = UnsafeRawPointer(table.baseAddress! + phase * width)
                    let second = first + width * MemoryLayout<Float>.stride
                    let frame = UnsafeRawPointer(samples.baseAddress! + (base - half + 1) * channels)
                    if vectors > 0 {
                        var sum = SIMD16<Float>()
                        for vector in 0..<vectors {
                            let offset = vector * 16 * MemoryLayout<Float>.stride
                            let a = first.loadUnaligned(fromByteOffset: offset, as: SIMD16<Float>.self)
                            let b = second.loadUnaligned(fromByteOffset: offset, as: SIMD16<Float>.self)
                            let x = frame.loadUnaligned(fromByteOffset: offset, as: SIMD16<Float>.self)
                            sum += x * (a + (b - a) * blend)
                        }
                        for channel in 0..<channels {
                            var total: Float = 0
                            var lane = channel
                            while lane < 16 {
                                total += sum[lane]
                                lane += channels
                            }
                            output.append(total)
                        }
                    } else {
                        let a = first.assumingMemoryBound(to: Float.self), b = second.assumingMemoryBound(to: Float.self)
                        let x = frame.assumingMemoryBound(to: Float.self)
                        for channel in 0..<channels {
                            var total: Float = 0
                            for index in stride(from: channel, to: width, by: channels) {
                                total += x[index] * (a[index] + (b[index] - a[index]) * blend)
                            }
                            output.append(total)
                        }
                    }
                    produced += 1
                    position += step
                }
            }
        }
        // Keep what the next output frames still need.
        let keepFrom = max(0, Int(position) - half + 1)
        if keepFrom > 0 {
            history.removeFirst(min(keepFrom, available) * channels)
            position -= Double(min(keepFrom, available))
        }
        return produced
    }
}
