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

/// One entry of the queue.
public struct QueueItem: Sendable, Hashable {
    public let id: Int
    public var song: Song
    public var priority: UInt8
    public var range: SongRange?
    /// Milliseconds from the start of the played part to its end, when the song's length is
    /// known (streams have none).
    public var playedLength: Int? {
        let start = range?.start ?? 0
        guard let end = range?.end ?? song.tag.duration else { return nil }
        return max(0, end - start)
    }
    /// The queue version at which this entry last changed (for plchanges).
    var version: UInt32

    init(id: Int, song: Song, priority: UInt8, version: UInt32) {
        self.id = id
        self.song = song
        self.priority = priority
        self.version = version
    }
}
