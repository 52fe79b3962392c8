import NimbusModel

/// One entry of a playlist file as its format describes it: where the song is (absolute, or
/// relative to the playlist) and the tags the playlist gives it.
public struct PlaylistEntry: Sendable, Equatable {
    public var uri: String
    public var tag: Tag
    /// A part of the file (a CUE sheet's track), in milliseconds; nil: all of it.
    public var start: Int?
    public var end: Int?

    public init(uri: String, tag: Tag = Tag(), start: Int? = nil, end: Int? = nil) {
        self.uri = uri
        self.tag = tag
        self.start = start
        self.end = end
    }
}

/// A playlist format MPD reads (its playlist plugins): recognised by a URL's suffix or by the
/// `Content-Type` a server gives it. `parse` answers nil when the bytes are not this format,
/// so the next candidate can try them.
public protocol PlaylistFormat: Sendable {
    var name: String { get }
    var suffixes: [String] { get }
    var mimeTypes: [String] { get }
    /// Whether the first bytes look like this format (for a server that names neither).
    func sniff(_ head: [UInt8]) -> Bool
    func parse(_ bytes: [UInt8]) -> [PlaylistEntry]?
}

/// The formats in MPD's order of preference. As in MPD, a format is chosen by MIME type
/// first, then by suffix; beyond MPD, a playlist served with neither (`text/plain`, no
/// suffix) is recognised by its first bytes.
public struct PlaylistFormats: Sendable {
    public let formats: [any PlaylistFormat]

    public static let standard = PlaylistFormats([ExtM3UPlaylist(), M3UPlaylist(), PLSPlaylist(), XSPFPlaylist(), CuePlaylist()])

    public init(_ formats: [any PlaylistFormat]) { self.formats = formats }

    /// `audio/x-scpls; charset=utf-8` → `audio/x-scpls`.
    static func essence(_ mimeType: String) -> String {
        String(mimeType.prefix { $0 != ";" }).trimmingSpaces.lowercased()
    }

    /// The suffix of a URL's path (`.M3U8?x=1` → `m3u8`), nil when it has none.
    static func suffix(_ uri: String) -> String? {
        var path = Substring(uri.prefix { $0 != "?" && $0 != "#" })
        if let scheme = path.range(of: "://") { path = path[scheme.upperBound...].drop { $0 != "/" } }
        let name = path.split(separator: "/").last ?? ""
        guard let dot = name.lastIndex(of: "."), name.index(after: dot) != name.endIndex else { return nil }
        return name[name.index(after: dot)...].lowercased()
    }

    public func claims(mimeType: String?, uri: String) -> Bool {
        if let mimeType, formats.contains(where: { $0.mimeTypes.contains(Self.essence(mimeType)) }) { return true }
        guard let suffix = Self.suffix(uri) else { return false }
        return formats.contains { $0.suffixes.contains(suffix) }
    }

    /// The entries of a playlist fetched from `uri`, or nil when no format reads it.
    public func parse(_ bytes: [UInt8], mimeType: String?, uri: String) -> [PlaylistEntry]? {
        let essence = mimeType.map(Self.essence)
        let suffix = Self.suffix(uri)
        var tried: Set<String> = []
        let candidates: [[any PlaylistFormat]] = [
            formats.filter { format in essence.map { format.mimeTypes.contains($0) } ?? false },
            formats.filter { format in suffix.map { format.suffixes.contains($0) } ?? false },
            formats.filter { $0.sniff(Array(bytes.prefix(512))) },
        ]
        for group in candidates {
            for format in group where !tried.contains(format.name) {
                tried.insert(format.name)
                if let entries = format.parse(bytes) { return entries }
            }
        }
        return nil
    }
}

extension StringProtocol {
    var trimmingSpaces: String {
        var text = Substring(self)
        while let first = text.first, first == " " || first == "\t" || first == "\r" || first == "\n" { text.removeFirst() }
        while let last = text.last, last == " " || last == "\t" || last == "\r" || last == "\n" { text.removeLast() }
        return String(text)
    }
}

/// Text lines of a playlist file: UTF-8 (a byte-order mark dropped), invalid bytes replaced.
func playlistLines(_ bytes: [UInt8]) -> [Substring] {
    var body = bytes[...]
    if body.starts(with: [0xEF, 0xBB, 0xBF]) { body = body.dropFirst(3) }
    return String(decoding: body, as: UTF8.self).split(omittingEmptySubsequences: true) { $0 == "\n" || $0 == "\r\n" || $0 == "\r" }
}
