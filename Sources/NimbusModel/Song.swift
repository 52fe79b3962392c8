/// A playable item: a library file (URI relative to the music directory) or a URL.
public struct Song: Sendable, Hashable {
    public var uri: String
    /// Seconds since 1970 of the file's last change, when known.
    public var lastModified: Int64?
    /// Seconds since 1970 when the song entered the database (MPD 0.24's `Added`).
    public var added: Int64?
    public var format: AudioFormat?
    public var tag: Tag

    public init(uri: String, lastModified: Int64? = nil, added: Int64? = nil, format: AudioFormat? = nil, tag: Tag = Tag()) {
        self.uri = uri
        self.lastModified = lastModified
        self.added = added
        self.format = format
        self.tag = tag
    }

    /// A URL a client queued, not a file of the library (`SongLocation` says more).
    public var isURL: Bool { Self.isURL(uri) }

    public static func isURL(_ uri: String) -> Bool { uri.contains("://") }
}
