import NimbusModel
import NimbusPlayer
import NimbusQueue
import NimbusSupport

/// Why a queue or playback command could not be carried out (the server maps these to ACKs).
public enum PlaybackError: Error, Equatable {
    case badSongIndex
    case noSuchSong
    case noCurrentSong
    case moveRelativeToItself
    case queueFull(Int)
    case notPlaying
    case noMixer
    case mixerFailed(String)
}

/// A partition: its queue, play order, options, player and outputs. Everything MPD's
/// `playlist` + `PlayerControl` do for one partition, on the core loop.
@CoreActor
public final class Partition {
    public let name: String
    public internal(set) var queue = PlayQueue()
    public internal(set) var options = PlaybackOptions()
    /// Order index of the current song (selected even while stopped).
    public internal(set) var current: Int?
    /// The last player error, shown as `error:` until cleared or the next play.
    public internal(set) var error: String?
    public internal(set) var state: PlayerState = .stop {
        didSet { playTime.note(state) }
    }
    /// The stored playlist last loaded into the queue; cleared with the queue (MPD 0.24).
    public var lastLoadedPlaylist = ""
    public private(set) lazy var outputs = MultipleOutputs(partition: self)
    public private(set) lazy var sleep = PartitionSleep(partition: self, fade: home.sleepFade)
    /// The set this partition belongs to: where songs open, idle events and the state file.
    unowned let home: PartitionSet

    public var maxQueueLength: Int { home.maxQueueLength }
    let engine: PlayerEngine
    private let reference: PartitionReference
    /// Which song follows which between this partition and its decoder.
    var handshake = FollowerHandshake()
    /// Elapsed time to show while stopped or before the player reports (a restored position).
    var pendingElapsed = 0
    /// Songs skipped in a row because they failed, so a queue of broken songs ends.
    var failureStreak = 0
    private var playTime = PlayTime()

    init(name: String, home: PartitionSet) {
        self.name = name
        self.home = home
        let reference = PartitionReference()
        engine = PlayerEngine(rates: home.rates) { event in
            Task { @CoreActor in reference.partition?.handle(event) }
        }
        self.reference = reference
        reference.partition = self
    }

    // MARK: positions

    /// Position (in the queue) of the current song.
    public var currentPosition: Int? {
        guard let current, current < queue.order.count else { return nil }
        return queue.order[current]
    }

    public var currentItem: QueueItem? { currentPosition.map { queue[$0] } }

    /// The order index of the song that plays after the current one (status `nextsong`).
    public var nextOrder: Int? {
        guard let current else { return nil }
        return queue.nextOrder(after: current, options: options)
    }

    /// MPD's playlist::GetNextPosition, which status shows as `nextsong`: unlike the song the
    /// player really queues, it ignores consume and single-without-repeat.
    public var displayedNextPosition: Int? {
        guard let current, current < queue.order.count else { return nil }
        if options.single != .off && options.repeatMode { return queue.order[current] }
        if current + 1 < queue.order.count { return queue.order[current + 1] }
        if options.repeatMode, !queue.isEmpty { return queue.order[0] }
        return nil
    }

    /// What the player decodes now, for `status`: its bit rate (kbit/s) and audio format.
    public var bitRate: Int { engine.status.bitRate }
    public var audioFormat: AudioFormat? { engine.status.format }

    /// The current song's length within its range, if known.
    public var durationMilliseconds: Int? {
        guard let item = currentItem else { return nil }
        let end = item.range?.end ?? item.fileLength
        return end.map { max(0, $0 - (item.range?.start ?? 0)) }
    }

    /// Seconds spent playing since the daemon started (`stats` playtime).
    public var playTimeSeconds: Int { playTime.seconds }

    /// Stops playback and releases the outputs (daemon shutdown).
    public func shutdown() {
        keepHeardPosition()
        stopPlayer()
        reference.partition = nil
    }

    func changed(_ events: IdleEvents) {
        onEvents(events)
        home.stateChanged()
    }

    func onEvents(_ events: IdleEvents) { home.events(events, of: self) }
}

/// Lets the player's event callback, created before the partition, find it later. Strong,
/// and cleared at `shutdown` to break the cycle: a weak reference would give every partition
/// a refcount side table, and `status` and most commands retain the client's partition.
@CoreActor
final class PartitionReference {
    var partition: Partition?
}

/// `stats` playtime: the time spent in the play state, kept in step with every state change.
struct PlayTime {
    private var accumulated: UInt64 = 0
    private var playingSince: UInt64?

    mutating func note(_ state: PlayerState) {
        if state == .play, playingSince == nil { playingSince = MonotonicClock.now() }
        if state != .play, let since = playingSince {
            accumulated += MonotonicClock.now() - since
            playingSince = nil
        }
    }

    var seconds: Int {
        var total = accumulated
        if let since = playingSince { total += MonotonicClock.now() - since }
        return Int(total / 1_000_000_000)
    }
}
