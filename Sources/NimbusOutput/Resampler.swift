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
        var table = [Float](repeating: 0, count: (Self.phases + 1) * Self.taps)
        for phase in 0...Self.phases {
            var row = [Double](repeating: 0, count: Self.taps)
            for tap in 0..<Self.taps {
                let distance = Double(phase) / Double(Self.phases) + Double(half - 1 - tap)
                row[tap] = Self.kernel(distance, cutoff: cutoff, half: Double(half))
            }
            let sum = row.reduce(0, +)
            for tap in 0..<Self.taps { table[phase * Self.taps + tap] = Float(row[tap] / sum) }
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
    @discardableResult
    public func process(_ input: UnsafeBufferPointer<Float>, into output: inout [Float]) -> Int {
        history.append(contentsOf: input)
        let half = Self.taps / 2
        let available = history.count / channels
        var produced = 0
        history.withUnsafeBufferPointer { samples in
            table.withUnsafeBufferPointer { table in
                while Int(position) + half < available {
                    let base = Int(position)
                    let fraction = position - Double(base)
                    let phaseExact = fraction * Double(Self.phases)
                    let phase = Int(phaseExact)
                    let blend = Float(phaseExact - Double(phase))
                    let first = table.baseAddress! + phase * Self.taps
                    let second = first + Self.taps
                    let start = base - half + 1
                    for channel in 0..<channels {
                        var sum: Float = 0
                        for tap in 0..<Self.taps {
                            let coefficient = first[tap] + (second[tap] - first[tap]) * blend
                            sum += samples[(start + tap) * channels + channel] * coefficient
                        }
                        output.append(sum)
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
