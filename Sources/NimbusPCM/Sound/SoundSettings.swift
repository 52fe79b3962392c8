import Foundation

/// What one output's sound chain does: the equalizer preset (nil: off), A/B bypass of it,
/// balance and crossfeed. All neutral by default, and then the chain is not run at all, so
/// the output stays bit-perfect.
public struct SoundSettings: Equatable, Sendable {
    /// The preset's name (what `attribute: eq=` shows) and its bands.
    public var presetName: String?
    public var equalizer: EqualizerPreset?
    /// The equalizer is set but not heard (A/B comparison); balance and crossfeed stay.
    public var bypass = false
    /// −1 (left only) … 0 (centre) … 1 (right only); the other side is attenuated linearly.
    public var balance = 0.0
    public var crossfeed: Crossfeed.Level?

    public init(presetName: String? = nil, equalizer: EqualizerPreset? = nil, bypass: Bool = false, balance: Double = 0, crossfeed: Crossfeed.Level? = nil) {
        self.presetName = presetName
        self.equalizer = equalizer
        self.bypass = bypass
        self.balance = balance
        self.crossfeed = crossfeed
    }

    public static let neutral = SoundSettings()

    public var isNeutral: Bool { (equalizer == nil || bypass) && balance == 0 && crossfeed == nil }
}

extension EqualizerPreset {
    /// The highest level the preset gives any frequency at `sampleRate`, preamp included, in
    /// dB: what the chain takes off in front so a boost never clips. Sampled on a log grid
    /// and at every band's own frequency, where peaks are.
    public func peakGainDB(sampleRate: Double) -> Double {
        let sections = bands.filter(\.enabled).map { BiquadCoefficients($0, sampleRate: sampleRate) }
        var frequencies = bands.map { min($0.frequency, sampleRate * 0.49) }
        let nyquist = sampleRate / 2 * 0.999
        for step in 0...400 { frequencies.append(10 * pow(nyquist / 10, Double(step) / 400)) }
        var peak = -Double.infinity
        for frequency in frequencies {
            let level = sections.reduce(preamp) { $0 + $1.magnitudeDB(at: frequency, sampleRate: sampleRate) }
            peak = max(peak, level)
        }
        return peak
    }
}
