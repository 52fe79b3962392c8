/// A playable item: a library file (URI relative to the music directory) or a URL.
///
/// A value with its fields in one shared, copy-on-write box: a copy (into the queue, a
/// listing, the state file) is one retain instead of one per field, and a queued song takes
/// a pointer's room beside the box it shares with the database's answer.
public struct Song: Sendable, Hashable {
    private final class Fields: @unchecked Sendable {
        // Mutated only while uniquely referenced (see `fields`), which makes the sharing safe.
        var uri: String
        var lastModified: Int64?
        var added: Int64?
        var format: AudioFormat?
        var tag: Tag

        init(uri: String, lastModified: Int64?, added: Int64?, format: AudioFormat?, tag: Tag) {
            self.uri = uri
            self.lastModified = lastModified
            self.added = added
            self.format = format
            self.tag = tag
        }
    }

    private var box: Fields

    /// The box, copied first when another song shares it.
    private var fields: Fields {
        mutating get {
            if !isKnownUniquelyReferenced(&box) {
                box = Fields(uri: box.uri, lastModified: box.lastModified, added: box.added, format: box.format, tag: box.tag)
            }
            return box
        }
    }

    public var uri: String {
        get { box.uri }
        set { fields.uri = newValue }
    }
    /// Seconds since 1970 of the file's last change, when known.
    public var lastModified: Int64? {
        get { box.lastModified }
        set { fields.lastModified = newValue }
    }
    /// Seconds since 1970 when the song entered the database (MPD 0.24's `Added`).
    public var added: Int64? {
        get { box.added }
        set { fields.added = newValue }
    }
    public var format: AudioFormat? {
        get { box.format }
        set { fields.format = newValue }
    }
    public var tag: Tag {
        get { box.tag }
        _modify { yield &fields.tag }
        set { fields.tag = newValue }
    }

    public init(uri: String, lastModified: Int64? = nil, added: Int64? = nil, format: AudioFormat? = nil, tag: Tag = Tag()) {
        box = Fields(uri: uri, lastModified: lastModified, added: added, format: format, tag: tag)
    }

    public static func == (lhs: Song, rhs: Song) -> Bool {
        lhs.box === rhs.box
            || (lhs.uri == rhs.uri && lhs.lastModified == rhs.lastModified && lhs.added == rhs.added && lhs.format == rhs.format
                && lhs.tag == rhs.tag)
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
