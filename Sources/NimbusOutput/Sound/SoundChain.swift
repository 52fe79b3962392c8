import Foundation
import Synchronization

/// One output's equalizer, balance and crossfeed, run on its thread after the rate change and
/// before volume. Settings arrive from the core at any time (`update`); the output thread
/// notices between chunks and crossfades from the old filters to the new over a few
/// milliseconds, so changing a preset, a band or bypass never clicks. Neutral settings (and
/// no fade in progress) make `isActive` false and the converter skips the chain entirely.
public final class SoundChain: @unchecked Sendable {
    // Invariant: `pending` is shared (locked); `generation`, `neutral`, `clippedSamples` and
    // `headroomBits` are atomics; everything else belongs to the output thread.
    private let pending = Mutex(SoundSettings.neutral)
    private let generation = Atomic<UInt64>(0)
    private let neutral = Atomic<Bool>(true)
    private let clippedSamples = Atomic<Int>(0)
    private let headroomBits = Atomic<UInt64>(0.0.bitPattern)
    private var applied: UInt64 = 0
    private var current: Stages?
    private var old: Stages?
    private var fadeDone = 0
    private var fadeLength = 0
    private var rate: UInt32 = 0
    private var channels = 0
    private var work: [Double] = []
    private var previous: [Double] = []

    /// Milliseconds of the crossfade between old and new filters.
    static let fadeMilliseconds = 20

    public init() {}

    public var settings: SoundSettings { pending.withLock { $0 } }

    public func update(_ settings: SoundSettings) {
        pending.withLock { $0 = settings }
        neutral.store(settings.isNeutral, ordering: .relaxed)
        generation.add(1, ordering: .releasing)
    }

    /// Samples that reached beyond full scale after the chain (they were clipped on output).
    public var clipped: Int { clippedSamples.load(ordering: .relaxed) }
    /// The attenuation in front of the equalizer (dB ≤ 0): preamp plus automatic headroom.
    public var headroomDB: Double { Double(bitPattern: headroomBits.load(ordering: .relaxed)) }

    /// Whether the converter must run the chain: settings not neutral, or a fade to neutral
    /// still playing out.
    public var isActive: Bool {
        !neutral.load(ordering: .relaxed) || current != nil || old != nil
    }

    /// The device was (re)opened: the next samples start a new stream, so filters start from
    /// silence with the latest settings and no fade from what played before. Output thread only.
    public func restart() {
        rate = 0
        old = nil
        current = nil
    }

    /// Runs the chain over interleaved samples at `sampleRate` in place.
    public func process(_ samples: UnsafeMutableBufferPointer<Float>, channels: Int, sampleRate: UInt32) {
        let latest = generation.load(ordering: .acquiring)
        if sampleRate != rate || channels != self.channels {
            // A new format: filters rebuilt for it, no fade (the device was reopened anyway).
            rate = sampleRate
            self.channels = channels
            applied = latest
            current = build(settings, channels: channels, sampleRate: sampleRate)
            old = nil
        } else if latest != applied {
            applied = latest
            if old == nil { old = current }
            current = build(settings, channels: channels, sampleRate: sampleRate)
            fadeLength = max(1, Int(sampleRate) * Self.fadeMilliseconds / 1000)
            fadeDone = 0
        }
        let count = samples.count
        work.removeAll(keepingCapacity: true)
        work.append(contentsOf: samples.lazy.map(Double.init))
        if old != nil {
            previous.removeAll(keepingCapacity: true)
            previous.append(contentsOf: work)
        }
        work.withUnsafeMutableBufferPointer { current?.run($0) }
        if old != nil {
            previous.withUnsafeMutableBufferPointer { old?.run($0) }
            let frames = count / channels
            for frame in 0..<frames {
                let weight = min(1, Double(fadeDone + frame) / Double(fadeLength))
                for channel in 0..<channels {
                    let index = frame * channels + channel
                    work[index] = previous[index] * (1 - weight) + work[index] * weight
                }
            }
            fadeDone += frames
            if fadeDone >= fadeLength { old = nil }
        }
        var clips = 0
        for index in 0..<count {
            let value = work[index]
            if value > 1 || value < -1 { clips += 1 }
            samples[index] = Float(value)
        }
        if clips > 0 { clippedSamples.add(clips, ordering: .relaxed) }
    }

    private func build(_ settings: SoundSettings, channels: Int, sampleRate: UInt32) -> Stages? {
        let stages = Stages(settings, channels: channels, sampleRate: Double(sampleRate))
        headroomBits.store(stages.map { 20 * log10($0.gain) } .map(\.bitPattern) ?? 0.0.bitPattern, ordering: .relaxed)
        return stages
    }

    /// The filters for one setting at one rate.
    struct Stages {
        var equalizer: BiquadCascade?
        /// Preamp and automatic headroom, linear.
        let gain: Double
        let left: Double
        let right: Double
        var crossfeed: Crossfeed?

        init?(_ settings: SoundSettings, channels: Int, sampleRate: Double) {
            guard !settings.isNeutral else { return nil }
            if let preset = settings.equalizer, !settings.bypass {
                let peak = preset.peakGainDB(sampleRate: sampleRate)
                let headroom = min(0, -peak)
                gain = pow(10, (preset.preamp + headroom) / 20)
                let sections = preset.bands.filter(\.enabled).map { BiquadCoefficients($0, sampleRate: sampleRate) }
                equalizer = sections.isEmpty ? nil : BiquadCascade(sections: sections, channels: channels)
            } else {
                gain = 1
                equalizer = nil
            }
            let balance = max(-1, min(1, settings.balance))
            left = channels == 2 ? min(1, 1 - balance) : 1
            right = channels == 2 ? min(1, 1 + balance) : 1
            crossfeed = channels == 2 ? settings.crossfeed.map { Crossfeed(level: $0, sampleRate: sampleRate) } : nil
        }

        mutating func run(_ samples: UnsafeMutableBufferPointer<Double>) {
            if gain != 1 { for index in samples.indices { samples[index] *= gain } }
            equalizer?.process(samples)
            crossfeed?.process(samples)
            if left != 1 || right != 1 {
                var index = 0
                while index + 1 < samples.count {
                    samples[index] *= left
                    samples[index + 1] *= right
                    index += 2
                }
            }
        }
    }
}
