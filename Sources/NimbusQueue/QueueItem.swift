import NimbusModel

/// A part of a song to play: `rangeid` sets it, the queue shows `Range: 1.500-5.000`.
public struct SongRange: Sendable, Hashable {
    /// Milliseconds from the start.
    public var start: Int
    /// Milliseconds; nil plays to the end.
    public var end: Int?

    public init(start: Int, end: Int?) {
        self.start = start
        self.end = end
    }
}

/// One entry of the queue. Ids, versions and the range are kept in 32 bits each (ids stay
/// below 2³¹ as MPD's, a range in milliseconds below 49 days): 32 bytes an entry where plain
/// `Int`s and optionals took 48 — a megabyte of a 50,000-song queue.
public struct QueueItem: Sendable, Hashable {
    public var song: Song
    private let storedID: UInt32
    /// The queue version at which this entry last changed (for plchanges).
    var version: UInt32
    /// Milliseconds; `UInt32.max` for no range at all (`rangeEnd` for "to the end").
    private var rangeStart: UInt32 = .max
    private var rangeEnd: UInt32 = .max
    public var priority: UInt8

    public var id: Int { Int(storedID) }

    public var range: SongRange? {
        get { rangeStart == .max ? nil : SongRange(start: Int(rangeStart), end: rangeEnd == .max ? nil : Int(rangeEnd)) }
        set {
            rangeStart = newValue.map { Self.milliseconds($0.start) } ?? .max
            rangeEnd = newValue?.end.map(Self.milliseconds) ?? .max
        }
    }

    /// Milliseconds from the start of the played part to its end, when the song's length is
    /// known (streams have none).
    public var playedLength: Int? {
        let start = range?.start ?? 0
        guard let end = range?.end ?? fileLength else { return nil }
        return max(0, end - start)
    }

    /// Milliseconds of the file played, when known: a CUE track's tag holds its own length,
    /// which ends that far past its start.
    public var fileLength: Int? {
        guard let target = song.target else { return song.tag.duration }
        return song.tag.duration.map { target.start + $0 }
    }

    /// A CUE track comes with its part of the file as its range, as MPD queues it.
    init(id: Int, song: Song, priority: UInt8, version: UInt32) {
        storedID = UInt32(id)
        self.song = song
        self.priority = priority
        self.version = version
        if let target = song.target { range = SongRange(start: target.start, end: target.end) }
    }

    private static func milliseconds(_ value: Int) -> UInt32 { UInt32(clamping: min(max(value, 0), Int(UInt32.max) - 1)) }
}
