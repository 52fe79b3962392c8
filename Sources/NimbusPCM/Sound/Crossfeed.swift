import Foundation

/// Bauer stereophonic-to-binaural crossfeed as libbs2b does it: each ear also hears the other
/// channel low-passed and a little late, the direct channel gets a matching high boost, so a
/// hard-panned instrument on headphones no longer sits inside one ear. Levels under libbs2b's
/// names and values, so `ffmpeg -af bs2b=profile=…` is a reference for the same setting.
public struct Crossfeed: Sendable {
    public enum Level: String, CaseIterable, Sendable {
        /// 700 Hz, 4.5 dB: close to a virtual speaker placement of ±30°.
        case `default`
        /// Chu Moy's: 700 Hz, 6 dB.
        case cmoy
        /// Jan Meier's: 650 Hz, 9.5 dB.
        case jmeier

        var cut: Double { self == .jmeier ? 650 : 700 }
        var feed: Double {
            switch self {
            case .default: 4.5
            case .cmoy: 6.0
            case .jmeier: 9.5
            }
        }
    }

    private let a0Low, b1Low, a0High, a1High, b1High, gain: Double
    private var low = (0.0, 0.0), high = (0.0, 0.0), previous = (0.0, 0.0)

    public init(level: Level, sampleRate: Double) {
        let lowGainDB = level.feed * -5 / 6 - 3
        let highGainDB = level.feed / 6 - 3
        let lowGain = pow(10, lowGainDB / 20)
        let highGain = 1 - pow(10, highGainDB / 20)
        let highCut = level.cut * pow(2, (lowGainDB - 20 * log10(highGain)) / 12)
        var x = exp(-2 * Double.pi * level.cut / sampleRate)
        b1Low = x
        a0Low = lowGain * (1 - x)
        x = exp(-2 * Double.pi * highCut / sampleRate)
        b1High = x
        a0High = 1 - highGain * (1 - x)
        a1High = -x
        gain = 1 / (1 - highGain + lowGain)
    }

    mutating func reset() {
        low = (0, 0)
        high = (0, 0)
        previous = (0, 0)
    }

    /// Filters interleaved stereo in place.
    mutating func process(_ samples: UnsafeMutableBufferPointer<Double>) {
        var index = 0
        while index + 1 < samples.count {
            let left = samples[index], right = samples[index + 1]
            low = (a0Low * left + b1Low * low.0, a0Low * right + b1Low * low.1)
            high = (
                a0High * left + a1High * previous.0 + b1High * high.0, a0High * right + a1High * previous.1 + b1High * high.1
            )
            previous = (left, right)
            samples[index] = (high.0 + low.1) * gain
            samples[index + 1] = (high.1 + low.0) * gain
            index += 2
        }
    }
}
