/// The sleep timer as a pure value: what a request or the passing of time means, told as
/// steps for the partition to carry out (`PartitionSleep`). Time is seconds on a monotonic
/// clock, given by the caller, so the unit tests drive it without waiting.
///
/// After the set time the sound fades to silence over `fade` seconds (the PCM level, not the
/// mixer: the volume a client sees never moves and every output fades, mixer or not), then
/// playback pauses and the level comes back. "End of song" instead lets the current song
/// finish and holds the next one paused, as single mode does.
public struct SleepTimer: Sendable, Equatable {
    public enum Request: Sendable, Equatable {
        case after(seconds: Int)
        case endOfSong
        case cancel
    }

    public enum Phase: Sendable, Equatable {
        case off
        case counting(deadline: Double)
        case endOfSong
        case fading(started: Double)
    }

    /// What the partition does.
    public enum Step: Sendable, Equatable {
        /// Multiply every output's sample level by this (1 = as set).
        case level(Double)
        /// Pause playback (the level comes back with the `level(1)` that follows).
        case pause
        /// Whether the player may go on to the next song.
        case stopAfterCurrent(Bool)
        /// `status` changed (`options` idle event).
        case announce
    }

    public private(set) var phase: Phase = .off
    /// Seconds the fade lasts (`sleep_fade`).
    public let fade: Double

    public init(fade: Double = 10) { self.fade = max(0, fade) }

    public var isSet: Bool { phase != .off }

    public mutating func request(_ request: Request, now: Double) -> [Step] {
        let wasFading = if case .fading = phase { true } else { false }
        let wasEnd = phase == .endOfSong
        var steps: [Step] = []
        switch request {
        case .cancel:
            phase = .off
        case .after(let seconds):
            phase = .counting(deadline: now + Double(max(0, seconds)))
        case .endOfSong:
            phase = .endOfSong
        }
        if wasFading { steps.append(.level(1)) }
        if wasEnd != (phase == .endOfSong) { steps.append(.stopAfterCurrent(phase == .endOfSong)) }
        steps.append(.announce)
        if case .counting = phase { steps += tick(now: now) }
        return steps
    }

    /// What time passing means: the deadline reached starts the fade; the fade moves the
    /// level down and, at its end, pauses and restores the level.
    public mutating func tick(now: Double) -> [Step] {
        switch phase {
        case .off, .endOfSong:
            return []
        case .counting(let deadline):
            guard now >= deadline else { return [] }
            phase = .fading(started: deadline)
            return tick(now: now)
        case .fading(let started):
            let done = fade > 0 ? (now - started) / fade : 1
            guard done >= 1 else { return [.level(max(0, 1 - done))] }
            phase = .off
            return [.level(0), .pause, .level(1), .announce]
        }
    }

    /// The current song ended with "end of song" set: the timer is spent.
    public mutating func songEnded() -> [Step] {
        guard phase == .endOfSong else { return [] }
        phase = .off
        return [.stopAfterCurrent(false), .announce]
    }

    /// Playback paused or stopped by someone: a fade under way is over (and the level back);
    /// a count goes on, as a kitchen timer would.
    public mutating func playbackHalted() -> [Step] {
        guard case .fading = phase else { return [] }
        phase = .off
        return [.level(1), .announce]
    }

    /// Seconds until the fade starts (0 while fading); nil when off or for "end of song"
    /// (the partition knows how much of the song is left).
    public func secondsLeft(now: Double) -> Int? {
        switch phase {
        case .off, .endOfSong: return nil
        case .counting(let deadline): return max(0, Int((deadline - now).rounded(.up)))
        case .fading: return 0
        }
    }

    /// When `tick` has something to do next: the deadline, or the next fade step.
    public func nextTick(now: Double, step: Double = 0.1) -> Double? {
        switch phase {
        case .off, .endOfSong: return nil
        case .counting(let deadline): return max(now, deadline)
        case .fading: return now + step
        }
    }
}
