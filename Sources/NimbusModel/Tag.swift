/// One tag value; a song's tags are an ordered list so multi-valued tags and the order a
/// file stores them in survive to the wire, as MPD prints them.
public struct TagItem: Sendable, Hashable {
    public let type: TagType
    public let value: String

    public init(_ type: TagType, _ value: String) {
        self.type = type
        self.value = value
    }
}

/// The metadata of a song: tags in file order and the exact duration.
public struct Tag: Sendable, Hashable {
    public var items: [TagItem]
    /// Milliseconds, truncated like MPD's SongTime (`frames * 1000 / rate`).
    public var duration: Int?

    public init(items: [TagItem] = [], duration: Int? = nil) {
        self.items = items
        self.duration = duration
    }

    public var isEmpty: Bool { items.isEmpty && duration == nil }

    public func has(_ type: TagType) -> Bool { items.contains { $0.type == type } }

    public func first(_ type: TagType) -> String? {
        for item in items where item.type == type { return item.value }
        return nil
    }

    public func values(_ type: TagType) -> [String] {
        var result: [String] = []
        for item in items where item.type == type { result.append(item.value) }
        return result
    }

    /// Calls `body` with each value of `type`, or of the first of MPD's fallbacks
    /// (AlbumArtist → Artist, *Sort → the unsorted tag) that has values; false if none had.
    /// Allocation-free: this runs for every song of every `list` and `count … group`.
    @discardableResult
    public func forEachValue(withFallback type: TagType, _ body: (String) -> Void) -> Bool {
        if forEachValue(of: type, body) { return true }
        for candidate in type.fallbacks where forEachValue(of: candidate, body) { return true }
        return false
    }

    private func forEachValue(of type: TagType, _ body: (String) -> Void) -> Bool {
        var found = false
        for item in items where item.type == type {
            found = true
            body(item.value)
        }
        return found
    }

    /// The one value of `type` with fallbacks (`""` if none), or nil when there are several.
    public func singleValue(withFallback type: TagType) -> String? {
        switch single(type) {
        case .one(let value): return value
        case .many: return nil
        case .none: break
        }
        for candidate in type.fallbacks {
            switch single(candidate) {
            case .one(let value): return value
            case .many: return nil
            case .none: continue
            }
        }
        return ""
    }

    private enum Occurrence {
        case none, one(String), many
    }

    private func single(_ type: TagType) -> Occurrence {
        var found: String?
        for index in items.indices where items[index].type == type {
            if found != nil { return .many }
            found = items[index].value
        }
        return found.map { .one($0) } ?? .none
    }

    /// The first value with fallbacks (sort keys).
    public func firstWithFallback(_ type: TagType) -> String? {
        if let value = first(type) { return value }
        for candidate in type.fallbacks {
            if let value = first(candidate) { return value }
        }
        return nil
    }

    /// All values with fallbacks.
    public func valuesWithFallback(_ type: TagType) -> [String] {
        var result: [String] = []
        forEachValue(withFallback: type) { result.append($0) }
        return result
    }

    public mutating func add(_ type: TagType, _ value: String) {
        items.append(TagItem(type, value))
    }
}
