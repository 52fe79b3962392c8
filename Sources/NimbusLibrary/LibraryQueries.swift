import NimbusModel
import NimbusStorage

/// `sort` of find/search and playlistfind/playlistsearch: a tag (Track and Disc numerically,
/// others by collation), the modification or addition time, or (queue only) the priority,
/// ascending or descending; stable, as MPD's std::stable_sort.
public enum SortOrder: Sendable, Equatable {
    case tag(TagType, descending: Bool)
    case lastModified(descending: Bool)
    case added(descending: Bool)
    case priority(descending: Bool)

    public func sort(_ songs: inout [Song]) {
        sort(&songs, song: { $0 }, priority: { _ in 0 })
    }

    public func sort<Item>(_ items: inout [Item], song: (Item) -> Song, priority: (Item) -> UInt8) {
        switch self {
        case .lastModified(let descending):
            Self.sort(&items, by: { song($0).lastModified ?? 0 }, descending: descending)
        case .added(let descending):
            Self.sort(&items, by: { song($0).added ?? 0 }, descending: descending)
        case .priority(let descending):
            Self.sort(&items, by: priority, descending: descending)
        case .tag(let type, let descending):
            let keys = items.map { song($0).tag.firstWithFallback(type) ?? "" }
            var indices = Array(items.indices)
            stableSort(&indices) { lhs, rhs in
                let (a, b) = descending ? (keys[rhs], keys[lhs]) : (keys[lhs], keys[rhs])
                if type == .track || type == .disc {
                    return LibraryDirectory.leadingNumber(a) < LibraryDirectory.leadingNumber(b)
                }
                return Collation.precedes(a, b)
            }
            items = indices.map { items[$0] }
        }
    }

    private static func sort<Item, Key: Comparable>(_ items: inout [Item], by key: (Item) -> Key, descending: Bool) {
        stableSort(&items) { lhs, rhs in descending ? key(lhs) > key(rhs) : key(lhs) < key(rhs) }
    }
}

/// Merge sort: Swift's sort is not guaranteed stable, MPD's is.
func stableSort<T>(_ items: inout [T], by precedes: (T, T) -> Bool) {
    guard items.count > 1 else { return }
    var buffer = items
    var width = 1
    while width < items.count {
        var start = 0
        while start < items.count {
            let middle = min(start + width, items.count)
            let end = min(start + 2 * width, items.count)
            var left = start, right = middle, out = start
            while left < middle && right < end {
                if precedes(items[right], items[left]) {
                    buffer[out] = items[right]
                    right += 1
                } else {
                    buffer[out] = items[left]
                    left += 1
                }
                out += 1
            }
            while left < middle { buffer[out] = items[left]; left += 1; out += 1 }
            while right < end { buffer[out] = items[right]; right += 1; out += 1 }
            start = end
        }
        swap(&items, &buffer)
        width *= 2
    }
}

extension Database {
    /// Visits matching songs below `base` in database order until `body` returns false. A
    /// `base` naming a song visits that song, as MPD's database lookup does.
    public func visitSongs(
        matching filter: FilterEvaluator?, base: String = "", _ body: (String, LibrarySong) -> Bool
    ) throws(LibraryError) {
        guard let start = root.directory(at: base) else {
            let parent = StoragePath.parent(base)
            guard let song = root.directory(at: parent)?.song(named: StoragePath.name(base)) else { throw .noSuchDirectory }
            if filter?.matches(song, in: parent) ?? true { _ = body(parent, song) }
            return
        }
        var stop = false
        func walk(_ directory: borrowing LibraryDirectory, _ path: String) {
            let hidden = directory.playlistTargets
            directory.songs.withUnsafeBufferPointer { songs in
                for index in songs.indices where !stop {
                    if LibraryDirectory.hides(songs[index], hidden) { continue }
                    if filter?.matches(songs[index], in: path) ?? true, !body(path, songs[index]) { stop = true }
                }
            }
            for child in directory.directories where !stop { walk(child, StoragePath.join(path, child.name)) }
        }
        walk(start, base)
    }

    /// Matching songs, sorted and windowed, as find and search return them.
    public func find(_ filter: FilterEvaluator, sort: SortOrder? = nil, window: Range<Int>? = nil) throws(LibraryError) -> [Song] {
        var songs: [Song] = []
        if sort == nil, let window {
            var index = 0
            try visitSongs(matching: filter, base: filter.base ?? "") { path, song in
                if index >= window.lowerBound { songs.append(song.song(in: path)) }
                index += 1
                return index < window.upperBound
            }
            return songs
        }
        try visitSongs(matching: filter, base: filter.base ?? "") { path, song in
            songs.append(song.song(in: path))
            return true
        }
        sort?.sort(&songs)
        guard let window else { return songs }
        return Array(songs[min(window.lowerBound, songs.count)..<min(window.upperBound, songs.count)])
    }

    public struct Count: Sendable, Equatable {
        public var songs = 0
        /// Milliseconds.
        public var playtime = 0
    }

    /// `count`: totals of matching songs, or per value of `group` (empty for songs lacking it).
    public func count(_ filter: FilterEvaluator?, group: TagType?) throws(LibraryError) -> [(String?, Count)] {
        try remembered("count \(String(describing: group)) \(filter?.key ?? "")") { () throws(LibraryError) -> [Counted] in
            try computeCount(filter, group: group).map { Counted(value: $0.0, count: $0.1) }
        }.map { ($0.value, $0.count) }
    }

    /// One group of a `count` answer, as it is remembered.
    struct Counted: Sendable {
        let value: String?
        let count: Count
    }

    private func computeCount(_ filter: FilterEvaluator?, group: TagType?) throws(LibraryError) -> [(String?, Count)] {
        var total = Count()
        var groups: [String: Count] = [:]
        try visitSongs(matching: filter, base: filter?.base ?? "") { _, song in
            let duration = song.tag.duration ?? 0
            if let group {
                let found = song.tag.forEachValue(withFallback: group) { value in
                    groups[value, default: Count()].songs += 1
                    groups[value, default: Count()].playtime += duration
                }
                if !found {
                    groups["", default: Count()].songs += 1
                    groups["", default: Count()].playtime += duration
                }
            } else {
                total.songs += 1
                total.playtime += duration
            }
            return true
        }
        guard group != nil else { return [(nil, total)] }
        return groups.keys.sorted(by: Collation.bytePrecedes).map { ($0, groups[$0]!) }
    }

    /// `list`: unique values of `types` nested outermost first (the last `group` clause first,
    /// the listed tag last), each level sorted by bytes, as MPD's RecursiveMap prints them.
    public func uniqueValues(_ types: [TagType], matching filter: FilterEvaluator?) throws(LibraryError) -> ValueTree {
        try remembered("list \(types) \(filter?.key ?? "")") { () throws(LibraryError) -> ValueTree in
            try computeUniqueValues(types, matching: filter)
        }
    }

    private func computeUniqueValues(_ types: [TagType], matching filter: FilterEvaluator?) throws(LibraryError) -> ValueTree {
        var tree = ValueTree()
        // Songs of one album sit together and usually share every listed value, so a song
        // whose single values equal the previous song's adds nothing and skips the hashing.
        var previous: [String] = []
        try visitSongs(matching: filter, base: filter?.base ?? "") { _, song in
            if previous.count == types.count,
                types.indices.allSatisfy({ song.tag.singleValue(withFallback: types[$0]) == previous[$0] })
            {
                return true
            }
            tree.insert(song.tag, types: types[...])
            previous.removeAll(keepingCapacity: true)
            for type in types {
                guard let value = song.tag.singleValue(withFallback: type) else {
                    previous.removeAll()
                    break
                }
                previous.append(value)
            }
            return true
        }
        return tree
    }

    /// All song URIs matching (`list file`).
    public func uris(matching filter: FilterEvaluator?) throws(LibraryError) -> [String] {
        var uris: [String] = []
        try visitSongs(matching: filter, base: filter?.base ?? "") { path, song in
            uris.append(song.withName { StoragePath.join(path, $0) })
            return true
        }
        return uris
    }
}

/// Nested unique tag values for `list … group …`.
public struct ValueTree: Sendable {
    public private(set) var children: [String: ValueTree] = [:]

    mutating func insert(_ tag: Tag, types: ArraySlice<TagType>) {
        guard let type = types.first else { return }
        let rest = types.dropFirst()
        let found = tag.forEachValue(withFallback: type) { value in
            children[value, default: ValueTree()].insert(tag, types: rest)
        }
        if !found { children["", default: ValueTree()].insert(tag, types: rest) }
    }

    public var sortedKeys: [String] { children.keys.sorted(by: Collation.bytePrecedes) }
}
