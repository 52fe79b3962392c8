import NimbusModel

/// The queue as MPD keeps it: items by position, stable ids, a play order (a permutation of
/// positions, shuffled in random mode with higher priorities first), and a version that
/// every change increments, stamping the entries it touched so `plchanges` can report exactly
/// what changed since a client's last look.
public struct PlayQueue: Sendable {
    public private(set) var items: [QueueItem] = []
    /// `order[i]` is the position played i-th.
    public private(set) var order: [Int] = []
    public private(set) var version: UInt32 = 1
    public var random = false
    /// Id → position, in 32 bits each (ids stay below 2³¹): half the room of `[Int: Int]`.
    private var positions: [UInt32: UInt32] = [:]
    private var nextID = 1
    private var generator = SystemRandomNumberGenerator()

    public init() {}

    public var count: Int { items.count }
    public var isEmpty: Bool { items.isEmpty }

    public subscript(position: Int) -> QueueItem { items[position] }

    public func position(ofID id: Int) -> Int? {
        guard let key = UInt32(exactly: id) else { return nil }
        return positions[key].map(Int.init)
    }

    private mutating func setPosition(_ position: Int?, ofID id: Int) { positions[UInt32(id)] = position.map { UInt32($0) } }
    public func orderIndex(ofPosition position: Int) -> Int? { order.firstIndex(of: position) }

    // MARK: versions

    /// Called once per command that changed the queue, after the changes (MPD's OnModified).
    public mutating func commitChange() {
        version &+= 1
        if version >= UInt32(Int32.max) {
            for index in items.indices { items[index].version = 0 }
            version = 1
        }
    }

    private mutating func touch(_ position: Int) { items[position].version = version }

    /// Entries changed since `since` (all when the client's version is newer than ours).
    public func changes(since: UInt32) -> [Int] {
        items.indices.filter { since > version || items[$0].version >= since || items[$0].version == 0 }
    }

    // MARK: adding

    /// Room for `count` songs more before a bulk add: the id index otherwise rehashed a dozen
    /// times while `add ""` queued 50,000 songs (7% of it, perf). Small adds grow as usual.
    public mutating func reserve(_ count: Int) {
        guard count >= 256 else { return }
        items.reserveCapacity(items.count + count)
        order.reserveCapacity(order.count + count)
        positions.reserveCapacity(positions.count + count)
    }

    /// Appends and returns the new id. In random mode the new song is shuffled in among the
    /// songs after `after` (the current or queued order index), as MPD's AppendSong does.
    @discardableResult
    public mutating func add(_ song: Song, priority: UInt8 = 0, after: Int? = nil) -> Int {
        let id = nextID
        nextID = nextID >= Int(Int32.max) ? 1 : nextID + 1
        items.append(QueueItem(id: id, song: song, priority: priority, version: version))
        setPosition(items.count - 1, ofID: id)
        order.append(items.count - 1)
        if random {
            let start = (after ?? -1) + 1
            if start < order.count { shuffleLast(from: start) }
        }
        return id
    }

    /// MPD's ShuffleOrderLastWithPriority: the last order entry swaps with a random entry of
    /// its own priority group at or after `start`.
    private mutating func shuffleLast(from start: Int) {
        let end = order.count
        let lastPriority = items[order[end - 1]].priority
        var first = start
        while first < end - 1 && items[order[first]].priority != lastPriority { first += 1 }
        order.swapAt(end - 1, Int.random(in: first..<end, using: &generator))
    }

    // MARK: removing

    public mutating func remove(at position: Int) {
        let id = items[position].id
        items.remove(at: position)
        setPosition(nil, ofID: id)
        for index in position..<items.count {
            setPosition(index, ofID: items[index].id)
            touch(index)
        }
        if let slot = order.firstIndex(of: position) { order.remove(at: slot) }
        order = order.map { $0 > position ? $0 - 1 : $0 }
    }

    public mutating func removeAll() {
        items.removeAll()
        order.removeAll()
        positions.removeAll()
    }

    // MARK: moving

    public mutating func move(from: Int, to: Int) {
        moveRange(from..<(from + 1), to: to)
    }

    /// Moves `range` so that it starts at `to` (a position in the queue without the range).
    public mutating func moveRange(_ range: Range<Int>, to: Int) {
        guard !range.isEmpty, range.lowerBound != to else {
            for index in range { touch(index) }
            return
        }
        let moved = Array(items[range])
        var rest = items
        rest.removeSubrange(range)
        rest.insert(contentsOf: moved, at: to)
        // Old position → new position, to renumber the play order.
        var mapping = Array(0..<items.count)
        var remaining = Array(0..<items.count)
        remaining.removeSubrange(range)
        remaining.insert(contentsOf: Array(range), at: to)
        for (newPosition, oldPosition) in remaining.enumerated() { mapping[oldPosition] = newPosition }
        items = rest
        if random { order = order.map { mapping[$0] } }
        let low = min(range.lowerBound, to)
        let high = max(range.upperBound, to + range.count)
        for index in low..<high {
            setPosition(index, ofID: items[index].id)
            touch(index)
        }
    }

    public mutating func swap(_ first: Int, _ second: Int) {
        items.swapAt(first, second)
        setPosition(first, ofID: items[first].id)
        setPosition(second, ofID: items[second].id)
        touch(first)
        touch(second)
    }

    /// MPD's shuffle command: `keep` (the playing song, when inside the range) goes to the
    /// range's first position and the rest is shuffled by swapping positions; the play order
    /// is left alone, as in MPD. Returns where `keep` ended up.
    @discardableResult
    public mutating func shuffle(_ range: Range<Int>, keeping keep: Int? = nil) -> Int? {
        var start = range.lowerBound
        var kept: Int?
        if let keep, range.contains(keep) {
            swap(start, keep)
            kept = start
            start += 1
        }
        guard start < range.upperBound else { return kept }
        for index in start..<range.upperBound {
            swap(index, Int.random(in: start..<range.upperBound, using: &generator))
        }
        return kept
    }

    // MARK: attributes

    /// MPD's Queue::SetPriority: false when nothing changed. In random mode a song not yet
    /// played moves to the front of its priority group among the songs after `currentOrder`.
    /// `reorder` false only sets the value (a starting song's reset, MPD's SongStarted).
    @discardableResult
    public mutating func setPriority(_ priority: UInt8, at position: Int, currentOrder: Int?, reorder: Bool = true) -> Bool {
        let old = items[position].priority
        guard old != priority else { return false }
        items[position].priority = priority
        touch(position)
        guard random, reorder, let orderIndex = order.firstIndex(of: position) else { return true }
        if let currentOrder {
            if orderIndex == currentOrder { return true }
            if orderIndex < currentOrder, priority <= old || priority <= items[order[currentOrder]].priority { return true }
        }
        let after = currentOrder ?? -1
        var before = order.count
        for index in (after + 1)..<order.count where items[order[index]].priority <= priority && index != orderIndex {
            before = index
            break
        }
        let target = before > orderIndex ? before - 1 : before
        let moved = order.remove(at: orderIndex)
        order.insert(moved, at: target)
        var groupEnd = target + 1
        while groupEnd < order.count && items[order[groupEnd]].priority == priority { groupEnd += 1 }
        order.swapAt(target, Int.random(in: target..<groupEnd, using: &generator))
        return true
    }

    public mutating func setRange(_ range: SongRange?, at position: Int) {
        items[position].range = range
        touch(position)
    }

    public mutating func replaceSong(at position: Int, with song: Song) {
        items[position].song = song
        touch(position)
    }

    // MARK: play order

    /// Switches random mode; the current song (if any) becomes the first of the new order.
    public mutating func setRandom(_ on: Bool, current: Int?) {
        random = on
        if on {
            shuffleOrder(keepingFirst: current)
        } else {
            order = Array(items.indices)
        }
    }

    /// Shuffles the play order (priorities first, the current song kept in front).
    public mutating func shuffleOrder(keepingFirst current: Int?) {
        var positions = Array(items.indices)
        if let current { positions.removeAll { $0 == current } }
        positions.shuffle(using: &generator)
        positions = Self.stablePriorityOrder(positions, items: items)
        order = (current.map { [$0] } ?? []) + positions
    }

    private static func stablePriorityOrder(_ positions: [Int], items: [QueueItem]) -> [Int] {
        positions.enumerated().sorted { lhs, rhs in
            let (a, b) = (items[lhs.element].priority, items[rhs.element].priority)
            return a != b ? a > b : lhs.offset < rhs.offset
        }.map(\.element)
    }
}
