import NimbusModel

/// MPD's extm3u plugin: a file starting with `#EXTM3U`; `#EXTINF:SECONDS,NAME` gives the next
/// entry a duration and the `Name` tag (MPD treats the text after the comma as opaque).
struct ExtM3UPlaylist: PlaylistFormat {
    let name = "extm3u"
    let suffixes = ["m3u", "m3u8"]
    let mimeTypes = ["audio/x-mpegurl", "audio/mpegurl", "application/vnd.apple.mpegurl", "application/x-mpegurl"]

    func sniff(_ head: [UInt8]) -> Bool { playlistLines(head).first?.trimmingSpaces == "#EXTM3U" }

    func parse(_ bytes: [UInt8]) -> [PlaylistEntry]? {
        let lines = playlistLines(bytes)
        guard lines.first?.trimmingSpaces == "#EXTM3U" else { return nil }
        var entries: [PlaylistEntry] = []
        var pending = Tag()
        for raw in lines.dropFirst() {
            let line = raw.trimmingSpaces
            if line.hasPrefix("#EXTINF:") {
                pending = Self.tag(fromExtinf: line.dropFirst(8))
                continue
            }
            guard !line.isEmpty, !line.hasPrefix("#") else { continue }
            entries.append(PlaylistEntry(uri: line, tag: pending))
            pending = Tag()
        }
        return entries
    }

    /// `123,Artist - Title` → duration 123 s and Name. As MPD: a negative duration counts as
    /// 0, and a line with neither a name nor a duration gives no tag at all.
    static func tag(fromExtinf text: Substring) -> Tag {
        guard let comma = text.firstIndex(of: ","), let seconds = Int(text[..<comma].trimmingSpaces) else { return Tag() }
        let name = text[text.index(after: comma)...].trimmingSpaces
        let duration = max(0, min(seconds, Int(Int32.max)))
        guard !name.isEmpty || duration > 0 else { return Tag() }
        var tag = Tag(duration: duration * 1000)
        if !name.isEmpty { tag.add(.name, name) }
        return tag
    }
}

/// MPD's plain m3u plugin: one URI per line, `#` lines are comments.
struct M3UPlaylist: PlaylistFormat {
    let name = "m3u"
    let suffixes = ["m3u", "m3u8"]
    let mimeTypes = ["audio/x-mpegurl", "audio/mpegurl"]

    /// Any text with a line that names a URL: the last resort for a server that says nothing.
    func sniff(_ head: [UInt8]) -> Bool {
        guard !head.contains(0), let first = playlistLines(head).first?.trimmingSpaces else { return false }
        return first.hasPrefix("http://") || first.hasPrefix("https://")
    }

    func parse(_ bytes: [UInt8]) -> [PlaylistEntry]? {
        guard !bytes.prefix(4096).contains(0) else { return nil }
        return playlistLines(bytes).compactMap { raw in
            let line = raw.trimmingSpaces
            return line.isEmpty || line.hasPrefix("#") ? nil : PlaylistEntry(uri: line)
        }
    }
}
