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
    public func first(_ type: TagType) -> String? { items.first { $0.type == type }?.value }
    public func values(_ type: TagType) -> [String] { items.filter { $0.type == type }.map(\.value) }

    /// Values with MPD's fallbacks (AlbumArtist → Artist, *Sort → the unsorted tag).
    public func valuesWithFallback(_ type: TagType) -> [String] {
        for candidate in [type] + type.fallbacks {
            let found = values(candidate)
            if !found.isEmpty { return found }
        }
        return []
    }

    public mutating func add(_ type: TagType, _ value: String) {
        items.append(TagItem(type, value))
    }
}

/// A playable item: a library file (URI relative to the music directory) or a URL.
public struct Song: Sendable, Hashable {
    public var uri: String
    /// Seconds since 1970 of the file's last change, when known.
    public var lastModified: Int64?
    public var format: AudioFormat?
    public var tag: Tag

    public init(uri: String, lastModified: Int64? = nil, format: AudioFormat? = nil, tag: Tag = Tag()) {
        self.uri = uri
        self.lastModified = lastModified
        self.format = format
        self.tag = tag
    }

    public var isRemote: Bool { uri.contains("://") }
}
