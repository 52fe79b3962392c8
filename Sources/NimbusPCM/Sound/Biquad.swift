import Foundation

/// One second-order section from Robert Bristow-Johnson's "Audio EQ Cookbook": the filter
/// shapes Equalizer APO, AutoEq, REW, ffmpeg's `equalizer`/`biquad` and sox all use, so a
/// preset made for one of them sounds the same here. Coefficients and state are doubles: in
/// float32 a low, narrow band at 96 kHz loses some 50 dB of precision to rounding.
public struct BiquadCoefficients: Equatable, Sendable {
    public var b0, b1, b2, a1, a2: Double

    public static let identity = BiquadCoefficients(b0: 1, b1: 0, b2: 0, a1: 0, a2: 0)

    public init(b0: Double, b1: Double, b2: Double, a1: Double, a2: Double) {
        (self.b0, self.b1, self.b2, self.a1, self.a2) = (b0, b1, b2, a1, a2)
    }

    /// The section for `band` at `sampleRate`. A band at or above Nyquist (AutoEq writes
    /// 22,050 Hz bands, which 44.1 kHz cannot hold) is moved just below it instead of failing.
    public init(_ band: EqualizerBand, sampleRate: Double) {
        let frequency = min(max(band.frequency, 1), sampleRate * 0.49)
        let w0 = 2 * Double.pi * frequency / sampleRate
        let cosine = cos(w0)
        let alpha = sin(w0) / (2 * max(band.q, 0.01))
        let a = pow(10, band.gain / 40)
        let root = 2 * a.squareRoot() * alpha
        let (b0, b1, b2, a0, a1, a2): (Double, Double, Double, Double, Double, Double)
        switch band.kind {
        case .peaking:
            (b0, b1, b2) = (1 + alpha * a, -2 * cosine, 1 - alpha * a)
            (a0, a1, a2) = (1 + alpha / a, -2 * cosine, 1 - alpha / a)
        case .lowShelf:
            b0 = a * ((a + 1) - (a - 1) * cosine + root)
            b1 = 2 * a * ((a - 1) - (a + 1) * cosine)
            b2 = a * ((a + 1) - (a - 1) * cosine - root)
            a0 = (a + 1) + (a - 1) * cosine + root
            a1 = -2 * ((a - 1) + (a + 1) * cosine)
            a2 = (a + 1) + (a - 1) * cosine - root
        case .highShelf:
            b0 = a * ((a + 1) + (a - 1) * cosine + root)
            b1 = -2 * a * ((a - 1) + (a + 1) * cosine)
            b2 = a * ((a + 1) + (a - 1) * cosine - root)
            a0 = (a + 1) - (a - 1) * cosine + root
            a1 = 2 * ((a - 1) - (a + 1) * cosine)
            a2 = (a + 1) - (a - 1) * cosine - root
        case .lowPass:
            (b0, b1, b2) = ((1 - cosine) / 2, 1 - cosine, (1 - cosine) / 2)
            (a0, a1, a2) = (1 + alpha, -2 * cosine, 1 - alpha)
        case .highPass:
            (b0, b1, b2) = ((1 + cosine) / 2, -(1 + cosine), (1 + cosine) / 2)
            (a0, a1, a2) = (1 + alpha, -2 * cosine, 1 - alpha)
        case .notch:
            (b0, b1, b2) = (1, -2 * cosine, 1)
            (a0, a1, a2) = (1 + alpha, -2 * cosine, 1 - alpha)
        }
        self.init(b0: b0 / a0, b1: b1 / a0, b2: b2 / a0, a1: a1 / a0, a2: a2 / a0)
    }

    /// |H| in dB at `frequency` (for the headroom and the page's curve).
    public func magnitudeDB(at frequency: Double, sampleRate: Double) -> Double {
        let w = 2 * Double.pi * frequency / sampleRate
        let (c1, s1, c2, s2) = (cos(w), sin(w), cos(2 * w), sin(2 * w))
        let numeratorReal = b0 + b1 * c1 + b2 * c2, numeratorImaginary = -(b1 * s1 + b2 * s2)
        let denominatorReal = 1 + a1 * c1 + a2 * c2, denominatorImaginary = -(a1 * s1 + a2 * s2)
        let numerator = numeratorReal * numeratorReal + numeratorImaginary * numeratorImaginary
        let denominator = denominatorReal * denominatorReal + denominatorImaginary * denominatorImaginary
        return 10 * log10(max(numerator, 1e-300) / max(denominator, 1e-300))
    }
}

/// A cascade of sections run in direct form I per channel (ffmpeg's default form, so the two
/// agree to rounding), on interleaved samples.
struct BiquadCascade {
    let sections: [BiquadCoefficients]
    let channels: Int
    /// x1, x2, y1, y2 per section and channel.
    private var state: [Double]

    init(sections: [BiquadCoefficients], channels: Int) {
        self.sections = sections
        self.channels = channels
        state = [Double](repeating: 0, count: sections.count * channels * 4)
    }

    /// Back to silence (a seek): the state is zeroed in place.
    mutating func reset() {
        for index in state.indices { state[index] = 0 }
    }

    /// Filters interleaved `samples` in place.
    mutating func process(_ samples: UnsafeMutableBufferPointer<Double>) {
        let frames = samples.count / channels
        state.withUnsafeMutableBufferPointer { state in
            // By index: iterating the sections' sequence boxes each 40-byte element on the
            // heap in an unoptimised build (the output thread must not allocate).
            for index in 0..<sections.count {
                let section = sections[index]
                for channel in 0..<channels {
                    let base = (index * channels + channel) * 4
                    var (x1, x2, y1, y2) = (state[base], state[base + 1], state[base + 2], state[base + 3])
                    var position = channel
                    for _ in 0..<frames {
                        let x = samples[position]
                        var y = section.b0 * x + section.b1 * x1 + section.b2 * x2 - section.a1 * y1 - section.a2 * y2
                        // A tail decaying after the music stops would turn denormal, which
                        // costs x86 a hundred times more per operation; 1e-25 is far below 32 bits.
                        if abs(y) < 1e-25 { y = 0 }
                        (x2, x1, y2, y1) = (x1, x, y1, y)
                        samples[position] = y
                        position += channels
                    }
                    (state[base], state[base + 1], state[base + 2], state[base + 3]) = (x1, x2, y1, y2)
                }
            }
        }
    }
}
