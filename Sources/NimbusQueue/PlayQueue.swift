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
    private var positions: [Int: Int] = [:]
    private var nextID = 1
    private var generator = SystemRandomNumberGenerator()

    public init() {}

    public var count: Int { items.count }
    public var isEmpty: Bool { items.isEmpty }

    public subscript(position: Int) -> QueueItem { items[position] }

    public func position(ofID id: Int) -> Int? { positions[id] }
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

    /// Appends (or inserts at `position`) and returns the new id.
    @discardableResult
    public mutating func add(_ song: Song, at position: Int? = nil, priority: UInt8 = 0) -> Int {
        let id = nextID
        nextID = nextID >= Int(Int32.max) ? 1 : nextID + 1
        items.append(QueueItem(id: id, song: song, priority: priority, version: version))
        positions[id] = items.count - 1
        insertIntoOrder(items.count - 1)
        if let position, position < items.count - 1 {
            move(from: items.count - 1, to: position)
        }
        return id
    }

    private mutating func insertIntoOrder(_ position: Int) {
        guard random else {
            order.append(position)
            return
        }
        // A new song goes to a random place among the songs not yet played (MPD picks a
        // random order slot after the current one); without a current song, anywhere.
        let slot = Int.random(in: 0...order.count, using: &generator)
        order.insert(position, at: slot)
    }

    // MARK: removing

    public mutating func remove(at position: Int) {
        let id = items[position].id
        items.remove(at: position)
        positions[id] = nil
        for index in position..<items.count {
            positions[items[index].id] = index
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
        order = order.map { mapping[$0] }
        let low = min(range.lowerBound, to)
        let high = max(range.upperBound, to + range.count)
        for index in low..<high {
            positions[items[index].id] = index
            touch(index)
        }
    }

    public mutating func swap(_ first: Int, _ second: Int) {
        items.swapAt(first, second)
        positions[items[first].id] = first
        positions[items[second].id] = second
        touch(first)
        touch(second)
        if !random {
            order = Array(items.indices)
        } else {
            order = order.map { $0 == first ? second : $0 == second ? first : $0 }
        }
    }

    /// Reorders `range` randomly (MPD's shuffle command), keeping `keep` (the current song)
    /// first when it lies inside the range.
    public mutating func shuffle(_ range: Range<Int>, keeping keep: Int? = nil) {
        guard range.count > 1 else { return }
        var slice = Array(range)
        slice.shuffle(using: &generator)
        if let keep, range.contains(keep), let index = slice.firstIndex(of: keep) {
            slice.swapAt(0, index)
            _ = slice
        }
        let original = items
        for (offset, source) in slice.enumerated() {
            items[range.lowerBound + offset] = original[source]
        }
        var mapping = Array(0..<items.count)
        for (offset, source) in slice.enumerated() { mapping[source] = range.lowerBound + offset }
        order = random ? order.map { mapping[$0] } : Array(items.indices)
        for index in range {
            positions[items[index].id] = index
            touch(index)
        }
    }

    // MARK: attributes

    public mutating func setPriority(_ priority: UInt8, at position: Int, currentOrder: Int?) {
        guard items[position].priority != priority else { return }
        items[position].priority = priority
        touch(position)
        if random { reorderForPriorities(after: currentOrder) }
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

    /// After a priority change: the songs after the current one are reshuffled so that higher
    /// priorities come first, as MPD does.
    private mutating func reorderForPriorities(after currentOrder: Int?) {
        let start = (currentOrder ?? -1) + 1
        guard start < order.count else { return }
        let tail = Self.stablePriorityOrder(Array(order[start...]), items: items)
        order.replaceSubrange(start..., with: tail)
    }

    private static func stablePriorityOrder(_ positions: [Int], items: [QueueItem]) -> [Int] {
        positions.enumerated().sorted { lhs, rhs in
            let (a, b) = (items[lhs.element].priority, items[rhs.element].priority)
            return a != b ? a > b : lhs.offset < rhs.offset
        }.map(\.element)
    }
}
