import Foundation
import NimbusDecoder

/// What the core tells the decoder about crossfading: `crossfade`, `mixrampdb`, `mixrampdelay`.
public struct CrossfadeSettings: Sendable, Equatable {
    public var seconds: Double
    public var mixRampDB: Float
    /// Nil: MixRamp is off (MPD's `mixrampdelay nan` or a value ≤ 0).
    public var mixRampDelay: Double?

    public init(seconds: Double = 0, mixRampDB: Float = 0, mixRampDelay: Double? = nil) {
        self.seconds = seconds
        self.mixRampDB = mixRampDB
        self.mixRampDelay = mixRampDelay
    }

    public var isEnabled: Bool { seconds > 0 }
    public var usesMixRamp: Bool { isEnabled && mixRampDelay != nil }

    /// MPD's MIN_TOTAL_TIME: shorter songs (jingles, interludes) never fade.
    static let shortestSong = 20.0
    /// The overlap never exceeds this (MPD is bounded by its audio buffer the same way).
    static let longestOverlap = 30.0

    /// MPD's CanCrossFadeSong: a song of known length, at least 20 s, longer than the fade.
    func canFade(songSeconds: Double?) -> Bool {
        guard isEnabled, let songSeconds else { return false }
        return songSeconds >= Self.shortestSong && seconds < songSeconds
    }

    /// How far ahead of a song's end the decoder opens its follower: far enough to read the
    /// follower's MixRamp profile before the overlap it decides on begins.
    var lookaheadSeconds: Double { usesMixRamp ? Self.longestOverlap : min(seconds, Self.longestOverlap) }

    /// The overlap of a natural join (MPD's CrossFadeSettings::Calculate), nil for none. With
    /// both MixRamp profiles it is where the outgoing tail and the incoming head reach
    /// `mixrampdb`, less `mixrampdelay`, and the two are summed without fades; a join whose
    /// profiles leave less than the delay does not overlap at all. Without the profiles it is
    /// a plain crossfade of `crossfade` seconds.
    func overlap(outgoing: MixRampTags?, incoming: MixRampTags?) -> (seconds: Double, additive: Bool)? {
        guard isEnabled else { return nil }
        if let delay = mixRampDelay, let outgoing, let incoming, let end = outgoing.end, let start = incoming.start {
            guard let head = MixRampTags.time(in: start, reaching: mixRampDB - incoming.gainDB),
                let tail = MixRampTags.time(in: end, reaching: mixRampDB - outgoing.gainDB), head >= 0, tail >= 0,
                delay <= head + tail
            else { return nil }
            let seconds = min(head + tail - delay, Self.longestOverlap)
            return seconds > 0.01 ? (seconds, true) : nil
        }
        return (min(seconds, Self.longestOverlap), false)
    }
}

/// The gain curve of an overlap: equal power (the sum of the squares stays 1, so the join
/// neither dips nor bulges for unrelated material), or flat for MixRamp's summing.
struct FadeCurve {
    let frames: Int
    let additive: Bool

    /// The (fade-in, fade-out) gains frame by frame from `position`: a rotation by a fixed
    /// angle per frame instead of two trigonometric calls per frame.
    func gains(from position: Int) -> Gains { Gains(curve: self, position: position) }

    struct Gains {
        private var sine: Double
        private var cosine: Double
        private let stepSine: Double
        private let stepCosine: Double
        private var remaining: Int
        private let additive: Bool

        init(curve: FadeCurve, position: Int) {
            additive = curve.additive
            let frames = max(curve.frames, 1)
            let angle = Double(min(max(position, 0), frames)) / Double(frames) * .pi / 2
            sine = sin(angle)
            cosine = cos(angle)
            let step = .pi / 2 / Double(frames)
            stepSine = sin(step)
            stepCosine = cos(step)
            remaining = max(0, frames - position)
        }

        mutating func next() -> (fadeIn: Float, fadeOut: Float) {
            if additive { return (1, 1) }
            guard remaining > 0 else { return (1, 0) }
            let result = (Float(sine), Float(max(0, cosine)))
            (sine, cosine) = (sine * stepCosine + cosine * stepSine, cosine * stepCosine - sine * stepSine)
            remaining -= 1
            return result
        }
    }
}
