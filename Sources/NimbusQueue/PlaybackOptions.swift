/// `single`: stop (or repeat) after the current song; `oneshot` switches itself off after.
public enum SingleMode: String, Sendable {
    case off = "0"
    case on = "1"
    case oneshot
}

/// `consume`: remove songs once played; `oneshot` (MPD 0.24) switches itself off after one.
public enum ConsumeMode: String, Sendable {
    case off = "0"
    case on = "1"
    case oneshot
}

/// The playback options MPD keeps per partition.
public struct PlaybackOptions: Sendable, Equatable {
    public var repeatMode = false
    public var single = SingleMode.off
    public var consume = ConsumeMode.off
    /// Seconds.
    public var crossfade = 0
    public var mixRampDB: Float = 0
    /// Seconds; nil is MPD's "disabled" (nan or negative).
    public var mixRampDelay: Float?
    public var replayGainMode = "off"

    public init() {}

    /// A song ended or was skipped: `single oneshot` is spent. True when it was.
    public mutating func spendSingleOneshot() -> Bool {
        guard single == .oneshot else { return false }
        single = .off
        return true
    }

    /// A song was consumed: `consume oneshot` is spent. True when it was.
    public mutating func spendConsumeOneshot() -> Bool {
        guard consume == .oneshot else { return false }
        consume = .off
        return true
    }
}

extension PlayQueue {
    /// MPD's Queue::GetNextOrder: the order index after `current`, honouring repeat, single
    /// and consume; nil at the end of the queue.
    public func nextOrder(after current: Int, options: PlaybackOptions) -> Int? {
        if options.single != .off && options.repeatMode && options.consume == .off { return current }
        if current + 1 < count { return current + 1 }
        if options.repeatMode && (current > 0 || options.consume == .off) && count > 0 { return 0 }
        return nil
    }

    /// The order index before `current` (previous), wrapping with repeat.
    public func previousOrder(before current: Int, options: PlaybackOptions) -> Int {
        if current > 0 { return current - 1 }
        return options.repeatMode ? count - 1 : 0
    }
}
