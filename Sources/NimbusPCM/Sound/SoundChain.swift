import Foundation
import Synchronization

/// One output's equalizer, balance and crossfeed: the `FilterChain`'s sound stage, run on the
/// output thread at the device's rate, before volume. Settings arrive from the core at any time
/// (`update`), which builds the filters for the format the output last opened — on the core's
/// side: the output thread never builds, allocates or takes a lock for them — and hands them
/// over through an atomic slot; the output thread takes them up between chunks and crossfades
/// from the old filters to the new over a few milliseconds, so changing a preset, a band or
/// bypass never clicks. Neutral settings (and no fade in progress) make `isActive` false and
/// the chain skips the stage entirely.
public final class SoundChain: Filter, @unchecked Sendable {
    // Invariant: `settingsBox` is read and written by control threads only (under its lock);
    // `handoff`, `retired`, `openFormat` and the counters are atomics shared with the output
    // thread; everything else (current, old, buffers, fade) belongs to the output thread.
    private let settingsBox = Mutex(SoundSettings.neutral)
    private let neutral = Atomic<Bool>(true)
    private let clippedSamples = Atomic<Int>(0)
    private let headroomBits = Atomic<UInt64>(0.0.bitPattern)
    /// Filters built for the latest settings, waiting for the output thread (a retained `Stages`).
    private let handoff = Atomic<UnsafeMutableRawPointer?>(nil)
    /// Filters the output thread put down, released by the next `update` on a control thread
    /// (a few slots: several fades may end between two updates).
    private let retired = InlineArray<4, Atomic<UnsafeMutableRawPointer?>> { _ in Atomic(nil) }
    /// The format the output thread opened for (rate << 8 | channels; 0: not yet).
    private let openFormat = Atomic<UInt64>(0)
    private var format = FloatFormat(sampleRate: 0, channels: 0)
    private var current: Stages?
    private var old: Stages?
    private var fadeDone = 0
    private var fadeLength = 0
    private var work: [Double] = []
    private var previous: [Double] = []

    /// Milliseconds of the crossfade between old and new filters.
    static let fadeMilliseconds = 20

    public init() {}

    deinit {
        if let raw = handoff.exchange(nil, ordering: .acquiring) { Unmanaged<Stages>.fromOpaque(raw).release() }
        releaseRetired()
    }

    public var settings: SoundSettings { settingsBox.withLock { $0 } }

    /// New settings from a control thread: filters built here for the output's format, handed
    /// over for the output thread to take up.
    public func update(_ settings: SoundSettings) {
        settingsBox.withLock { $0 = settings }
        neutral.store(settings.isNeutral, ordering: .relaxed)
        releaseRetired()
        let packed = openFormat.load(ordering: .acquiring)
        guard packed != 0 else { return }
        let stages = Stages(settings, format: FloatFormat(sampleRate: UInt32(packed >> 8), channels: Int(packed & 0xFF)))
        publishHeadroom(stages)
        let raw = Unmanaged.passRetained(stages).toOpaque()
        if let stale = handoff.exchange(raw, ordering: .acquiringAndReleasing) { Unmanaged<Stages>.fromOpaque(stale).release() }
    }

    /// Samples that reached beyond full scale after the chain (they were clipped on output).
    public var clipped: Int { clippedSamples.load(ordering: .relaxed) }
    /// The attenuation in front of the equalizer (dB ≤ 0): preamp plus automatic headroom.
    public var headroomDB: Double { Double(bitPattern: headroomBits.load(ordering: .relaxed)) }

    /// Whether the chain must run the stage: settings not neutral, or a fade to neutral still
    /// playing out.
    public var isActive: Bool {
        !neutral.load(ordering: .relaxed) || current?.isNeutral == false || old != nil || handoff.load(ordering: .relaxed) != nil
    }

    /// A chain was made for the device's `format` (it opened, or the song's format changed):
    /// at a new format the filters start from silence with the latest settings and no fade
    /// from what played before; at the same format they play on (a song in another format
    /// joins without a click; `reset` clears them when the device reopens). Output thread;
    /// building here is allowed (nothing plays while a chain is made).
    public func open(_ format: FloatFormat) -> FloatFormat {
        if format == self.format, current != nil { return format }
        self.format = format
        openFormat.store(UInt64(format.sampleRate) << 8 | UInt64(format.channels & 0xFF), ordering: .releasing)
        if let raw = handoff.exchange(nil, ordering: .acquiring) { Unmanaged<Stages>.fromOpaque(raw).release() }
        current = Stages(settings, format: format)
        publishHeadroom(current!)
        old = nil
        // A quarter of a second: more than any chunk of a song at 16 kHz or above brings.
        let room = max(16 * 1024, Int(format.sampleRate) / 4 * format.channels)
        work.reserveCapacity(room)
        previous.reserveCapacity(room)
        return format
    }

    /// Starts from silence (the device reopened, a seek): filters handed over meanwhile are
    /// taken up at once, with no fade from what played before.
    public func reset() {
        retire(&old)
        if let raw = handoff.exchange(nil, ordering: .acquiring) {
            let next = Unmanaged<Stages>.fromOpaque(raw).takeRetainedValue()
            if next.format == format {
                retire(&current)
                current = next
            } else {
                retire(next)
            }
        }
        current?.reset()
    }

    private func publishHeadroom(_ stages: Stages) {
        headroomBits.store((20 * log10(stages.gain)).bitPattern, ordering: .relaxed)
    }

    /// Runs the stage over interleaved samples in place. Output thread.
    public func filter(_ samples: UnsafeMutableBufferPointer<Float>) -> UnsafeMutableBufferPointer<Float> {
        takeUpdate()
        guard let current, format.channels > 0 else { return samples }
        let count = samples.count, channels = format.channels
        work.removeAll(keepingCapacity: true)
        work.append(contentsOf: samples.lazy.map(Double.init))
        if old != nil {
            previous.removeAll(keepingCapacity: true)
            previous.append(contentsOf: work)
        }
        work.withUnsafeMutableBufferPointer { current.run($0) }
        if let old {
            previous.withUnsafeMutableBufferPointer { old.run($0) }
            let frames = count / channels
            for frame in 0..<frames {
                let weight = min(1, Double(fadeDone + frame) / Double(fadeLength))
                for channel in 0..<channels {
                    let index = frame * channels + channel
                    work[index] = previous[index] * (1 - weight) + work[index] * weight
                }
            }
            fadeDone += frames
            if fadeDone >= fadeLength { retire(&self.old) }
        }
        var clips = 0
        for index in 0..<count {
            let value = work[index]
            if value > 1 || value < -1 { clips += 1 }
            samples[index] = Float(value)
        }
        if clips > 0 { clippedSamples.add(clips, ordering: .relaxed) }
        return samples
    }

    /// Filters handed over since the last chunk: a fade from the ones in use begins. Ones built
    /// for another format (the device reopened meanwhile) are not used.
    private func takeUpdate() {
        guard let raw = handoff.exchange(nil, ordering: .acquiring) else { return }
        let next = Unmanaged<Stages>.fromOpaque(raw).takeRetainedValue()
        guard next.format == format else {
            retire(next)
            return
        }
        if old == nil {
            old = current
        } else {
            retire(&current)
        }
        current = next
        fadeLength = max(1, Int(format.sampleRate) * Self.fadeMilliseconds / 1000)
        fadeDone = 0
    }

    /// Puts down filters without freeing them here (a free is the allocator's lock): a control
    /// thread releases them at the next `update`.
    private func retire(_ stages: inout Stages?) {
        if let taken = stages { retire(taken) }
        stages = nil
    }

    private func retire(_ stages: Stages) {
        let raw = Unmanaged.passRetained(stages).toOpaque()
        for index in retired.indices where retired[index].compareExchange(expected: nil, desired: raw, ordering: .acquiringAndReleasing).exchanged {
            return
        }
        // Every slot full (no update for four fades): the oldest is freed here, once.
        if let previous = retired[0].exchange(raw, ordering: .acquiringAndReleasing) { Unmanaged<Stages>.fromOpaque(previous).release() }
    }

    /// Control thread: frees what the output thread put down.
    private func releaseRetired() {
        for index in retired.indices {
            if let raw = retired[index].exchange(nil, ordering: .acquiring) { Unmanaged<Stages>.fromOpaque(raw).release() }
        }
    }

    /// The filters for one setting at one format; their state belongs to the output thread.
    final class Stages {
        let format: FloatFormat
        let isNeutral: Bool
        var equalizer: BiquadCascade?
        /// Preamp and automatic headroom, linear.
        let gain: Double
        let left: Double
        let right: Double
        var crossfeed: Crossfeed?

        init(_ settings: SoundSettings, format: FloatFormat) {
            self.format = format
            isNeutral = settings.isNeutral
            let channels = format.channels, sampleRate = Double(format.sampleRate)
            if let preset = settings.equalizer, !settings.bypass, !settings.isNeutral {
                let peak = preset.peakGainDB(sampleRate: sampleRate)
                let headroom = min(0, -peak)
                gain = pow(10, (preset.preamp + headroom) / 20)
                let sections = preset.bands.filter(\.enabled).map { BiquadCoefficients($0, sampleRate: sampleRate) }
                equalizer = sections.isEmpty ? nil : BiquadCascade(sections: sections, channels: channels)
            } else {
                gain = 1
                equalizer = nil
            }
            let balance = settings.isNeutral ? 0 : max(-1, min(1, settings.balance))
            left = channels == 2 ? min(1, 1 - balance) : 1
            right = channels == 2 ? min(1, 1 + balance) : 1
            crossfeed = channels == 2 && !settings.isNeutral ? settings.crossfeed.map { Crossfeed(level: $0, sampleRate: sampleRate) } : nil
        }

        func reset() {
            equalizer?.reset()
            crossfeed?.reset()
        }

        func run(_ samples: UnsafeMutableBufferPointer<Double>) {
            if isNeutral { return }
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
