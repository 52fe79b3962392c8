/// A playable item: a library file (URI relative to the music directory) or a URL.
///
/// A value with its fields in one shared, copy-on-write box: a copy (into the queue, a
/// listing, the state file) is one retain instead of one per field, and a queued song takes
/// a pointer's room beside the box it shares with the database's answer.
public struct Song: Sendable, Hashable {
    /// Stored without optionals of 9 bytes (the sentinels stand for nil) and with the tag's
    /// items and length apart: 67 bytes, an 80-byte heap chunk where the plain fields took 112
    /// — one per queued song, so 1.6 MB of a 50,000-song queue (heaptrack).
    private final class Fields: @unchecked Sendable {
        // Mutated only while uniquely referenced (see `fields`), which makes the sharing safe.
        var uri: String
        var modifiedOrMin: Int64
        var addedOrMin: Int64
        var items: [TagItem]
        /// Milliseconds, `UInt32.max` for none (49 days or more is kept as just under).
        var milliseconds: UInt32
        var format: AudioFormat?
        var target: SongTarget?

        init(
            uri: String, modifiedOrMin: Int64, addedOrMin: Int64, items: [TagItem], milliseconds: UInt32, format: AudioFormat?,
            target: SongTarget? = nil
        ) {
            self.target = target
            self.uri = uri
            self.modifiedOrMin = modifiedOrMin
            self.addedOrMin = addedOrMin
            self.items = items
            self.milliseconds = milliseconds
            self.format = format
        }

        var copy: Fields {
            Fields(
                uri: uri, modifiedOrMin: modifiedOrMin, addedOrMin: addedOrMin, items: items, milliseconds: milliseconds, format: format,
                target: target)
        }

        var tag: Tag {
            get { Tag(items: items, duration: milliseconds == .max ? nil : Int(milliseconds)) }
            set {
                items = newValue.items
                milliseconds = Fields.milliseconds(newValue.duration)
            }
        }

        static func milliseconds(_ duration: Int?) -> UInt32 {
            duration.map { UInt32(clamping: min($0, Int(UInt32.max) - 1)) } ?? .max
        }
    }

    private var box: Fields

    /// The box, copied first when another song shares it.
    private var fields: Fields {
        mutating get {
            if !isKnownUniquelyReferenced(&box) { box = box.copy }
            return box
        }
    }

    public var uri: String {
        get { box.uri }
        set { fields.uri = newValue }
    }
    /// Seconds since 1970 of the file's last change, when known.
    public var lastModified: Int64? {
        get { box.modifiedOrMin == .min ? nil : box.modifiedOrMin }
        set { fields.modifiedOrMin = newValue ?? .min }
    }
    /// Seconds since 1970 when the song entered the database (MPD 0.24's `Added`).
    public var added: Int64? {
        get { box.addedOrMin == .min ? nil : box.addedOrMin }
        set { fields.addedOrMin = newValue ?? .min }
    }
    public var format: AudioFormat? {
        get { box.format }
        set { fields.format = newValue }
    }
    public var tag: Tag {
        get { box.tag }
        _modify {
            // The items move out for the change and back after it (`defer`, so a throwing
            // caller writes them back too): a change in place, not a copy of the array.
            let fields = self.fields
            var tag = fields.tag
            fields.items = []
            defer { fields.tag = tag }
            yield &tag
        }
        set { fields.tag = newValue }
    }

    /// Where a CUE track's audio is: nil for every other song, which plays its own `uri`.
    public var target: SongTarget? {
        get { box.target }
        set { fields.target = newValue }
    }

    /// The file the player opens: the CUE track's image, else the song itself.
    public var playedURI: String { box.target?.uri ?? box.uri }

    public init(
        uri: String, lastModified: Int64? = nil, added: Int64? = nil, format: AudioFormat? = nil, tag: Tag = Tag(),
        target: SongTarget? = nil
    ) {
        box = Fields(
            uri: uri, modifiedOrMin: lastModified ?? .min, addedOrMin: added ?? .min, items: tag.items,
            milliseconds: Fields.milliseconds(tag.duration), format: format, target: target)
    }

    public static func == (lhs: Song, rhs: Song) -> Bool {
        lhs.box === rhs.box
            || (lhs.uri == rhs.uri && lhs.lastModified == rhs.lastModified && lhs.added == rhs.added && lhs.format == rhs.format
                && lhs.tag == rhs.tag && lhs.target == rhs.target)
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(uri)
        hasher.combine(lastModified)
        hasher.combine(added)
        hasher.combine(format)
        hasher.combine(tag)
    }

    /// A URL a client queued, not a file of the library (`SongLocation` says more).
    public var isURL: Bool { Self.isURL(uri) }

    /// Whether `uri` has a scheme (`http://…`, `nfs://…`). A byte search: `String.contains`
    /// walks grapheme clusters, and this is asked for every song of an `add ""` (it was two
    /// thirds of queuing 50,000 songs).
    public static func isURL(_ uri: String) -> Bool {
        let utf8 = uri.utf8
        return utf8.withContiguousStorageIfAvailable(containsSchemeSeparator) ?? containsSchemeSeparator(Array(utf8))
    }

    private static func containsSchemeSeparator<Bytes: RandomAccessCollection<UInt8>>(_ bytes: Bytes) -> Bool where Bytes.Index == Int {
        guard bytes.count >= 3 else { return false }
        var index = bytes.startIndex
        while index + 2 < bytes.endIndex {
            if bytes[index] == 0x3A, bytes[index + 1] == 0x2F, bytes[index + 2] == 0x2F { return true }
            index += 1
        }
        return false
    }
}

/// A song that is part of another file — a CUE sheet's track: the file (library-relative URI)
/// and the part of it, in milliseconds (`end` nil: to the file's end), as MPD's `real_uri`
/// with a start and end time.
public struct SongTarget: Sendable, Hashable {
    public var uri: String
    public var start: Int
    public var end: Int?

    public init(uri: String, start: Int, end: Int?) {
        self.uri = uri
        self.start = start
        self.end = end
    }
}
