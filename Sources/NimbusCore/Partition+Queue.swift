import NimbusDecoder
import NimbusModel
import NimbusQueue
import NimbusSupport

/// Queue editing with MPD's rules: every command that changes the queue bumps its version
/// once, raises `playlist`, and re-queues the song after the current one for gapless play.
extension Partition {
    /// Appends (or inserts at `position`) and returns the new ids. As in MPD an insertion is
    /// an append followed by a move, and each of the two counts as a queue change.
    @discardableResult
    public func add(_ songs: [Song], at position: Int? = nil) throws(PlaybackError) -> [Int] {
        guard queue.count + songs.count <= maxQueueLength else { throw .queueFull(maxQueueLength) }
        guard !songs.isEmpty else { return [] }
        let start = queue.count
        var ids: [Int] = []
        ids.reserveCapacity(songs.count)
        queue.reserve(songs.count)
        // A song already queued for gapless play keeps its place.
        let after = current.map { $0 + (handshake.follower != nil ? 1 : 0) }
        for var song in songs {
            if song.isURL, let known = home.remoteTags.lookup(song) { song.apply(known) }
            ids.append(queue.add(song, after: after))
        }
        queueChanged()
        if songs.count >= Heap.burstSongs { Heap.returnFreeMemorySoon() }
        if let position, position != start {
            preservingCurrent { queue.moveRange(start..<queue.count, to: position) }
            queueChanged()
        }
        return ids
    }

    public func delete(_ range: Range<Int>) throws(PlaybackError) {
        guard range.lowerBound < queue.count || range.isEmpty, range.upperBound <= queue.count else { throw .badSongIndex }
        guard !range.isEmpty else { return }
        let playingPosition = currentPosition
        let wasPlaying = state != .stop
        let removesCurrent = playingPosition.map(range.contains) ?? false
        for position in range.reversed() { queue.remove(at: position) }
        if range.count >= Heap.burstSongs { Heap.returnFreeMemorySoon() }
        if let playingPosition {
            if removesCurrent {
                // The current song is gone: the song now at its place (if any) becomes current.
                let replacement = min(range.lowerBound, queue.count - 1)
                current = replacement >= 0 && queue.count > 0 ? queue.orderIndex(ofPosition: replacement) : nil
                if wasPlaying {
                    if current != nil { startCurrent(at: 0, resuming: true) } else { stopPlayer() }
                }
            } else {
                let shifted = playingPosition >= range.upperBound ? playingPosition - range.count : playingPosition
                current = queue.orderIndex(ofPosition: shifted)
            }
        }
        queueChanged()
    }

    /// As MPD's `playlist::Clear`: a queue cleared while playing (or paused) stops the player
    /// first, which wakes `player` idlers too (scrobblers count the song as ended there).
    public func clear() {
        let wasPlaying = state != .stop
        stopPlayer()
        if queue.count >= Heap.burstSongs { Heap.returnFreeMemorySoon() }
        queue.removeAll()
        current = nil
        lastLoadedPlaylist = ""
        queueChanged()
        if wasPlaying { onEvents(.player) }
    }

    /// Moves `range` so it starts at `to` (in the queue without the range).
    public func move(_ range: Range<Int>, to: Int) throws(PlaybackError) {
        guard range.lowerBound >= 0, to >= 0, range.upperBound <= queue.count, to + range.count <= queue.count else {
            throw .badSongIndex
        }
        guard range.lowerBound != to else { return }
        preservingCurrent { queue.moveRange(range, to: to) }
        queueChanged()
    }

    public func swap(_ first: Int, _ second: Int) throws(PlaybackError) {
        guard first < queue.count, second < queue.count else { throw .badSongIndex }
        preservingCurrent { queue.swap(first, second) }
        queueChanged()
    }

    /// MPD's shuffle: a playing song inside the range moves to its start and stays current;
    /// while stopped the current song is forgotten.
    public func shuffle(_ range: Range<Int>) throws(PlaybackError) {
        guard range.upperBound <= queue.count else { throw .badSongIndex }
        guard range.count > 1 else { return }
        if state != .stop, let position = currentPosition, range.contains(position) {
            queue.shuffle(range, keeping: position)
            current = queue.orderIndex(ofPosition: range.lowerBound)
        } else if state != .stop {
            preservingCurrent { queue.shuffle(range) }
        } else {
            queue.shuffle(range)
            current = nil
        }
        queueChanged()
    }

    /// Changes priorities; like MPD, any non-empty range counts as a queue change even when
    /// the priorities were already set.
    public func setPriority(_ priority: UInt8, positions: [Int]) throws(PlaybackError) {
        guard positions.allSatisfy({ $0 < queue.count }) else { throw .badSongIndex }
        guard !positions.isEmpty else { return }
        preservingCurrent {
            for position in positions { queue.setPriority(priority, at: position, currentOrder: current) }
        }
        queueChanged()
    }

    public func setRange(_ range: SongRange?, id: Int) throws(PlaybackError) {
        guard let position = queue.position(ofID: id) else { throw .noSuchSong }
        queue.setRange(range, at: position)
        queueChanged()
    }

    /// Replaces a song's tags (addtagid/cleartagid on remote songs).
    public func updateSong(id: Int, _ change: (inout Song) -> Void) throws(PlaybackError) {
        guard let position = queue.position(ofID: id) else { throw .noSuchSong }
        var song = queue[position].song
        change(&song)
        queue.replaceSong(at: position, with: song)
        queueChanged()
    }

    /// A URL's tags arrived (MPD's TagModified): every entry of it takes them, once.
    func remoteTagsArrived(_ uri: String, _ result: ScanResult) {
        var modified = false
        for position in queue.items.indices where queue[position].song.uri == uri {
            var song = queue[position].song
            song.apply(result)
            guard song != queue[position].song else { continue }
            queue.replaceSong(at: position, with: song)
            modified = true
        }
        if modified { queueChanged() }
    }

    /// Runs a reordering and keeps `current` on the same queue entry.
    func preservingCurrent(_ body: () -> Void) {
        let id = currentItem?.id
        body()
        current = id.flatMap { queue.position(ofID: $0) }.flatMap { queue.orderIndex(ofPosition: $0) }
    }

    func queueChanged() {
        queue.commitChange()
        refreshNext()
        changed(.playlist)
    }
}

extension PlayQueue {
    /// The position of the entry `id`, for the commands that name songs by id.
    public func position(ofExistingID id: Int) throws(PlaybackError) -> Int {
        guard let position = position(ofID: id) else { throw .noSuchSong }
        return position
    }
}

extension Song {
    /// A scan's tags replace the song's, as MPD's SetTag does (MPD shows no `Format` for a
    /// URL in the queue, so the scanned format is not taken).
    mutating func apply(_ result: ScanResult) { tag = result.tag }

    /// A radio stream's name and title replace the song's Name and Title.
    mutating func applyStreamTags(name: String?, title: String?) {
        var items = tag.items
        if let name, !name.isEmpty {
            items.removeAll { $0.type == .name }
            items.append(TagItem(.name, name))
        }
        if let title, !title.isEmpty {
            items.removeAll { $0.type == .title }
            items.append(TagItem(.title, title))
        }
        tag.items = items
    }
}
