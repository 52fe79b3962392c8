import NimbusModel
import NimbusXML

/// MPD's xspf plugin: each `track`'s `location`, with `title`, `creator` (Artist),
/// `annotation` (Comment), `album` and `trackNum`; `duration` (milliseconds) as its length.
struct XSPFPlaylist: PlaylistFormat {
    let name = "xspf"
    let suffixes = ["xspf"]
    let mimeTypes = ["application/xspf+xml"]
    static let namespace = "http://xspf.org/ns/0/"

    func sniff(_ head: [UInt8]) -> Bool {
        String(decoding: head, as: UTF8.self).contains(Self.namespace)
    }

    func parse(_ bytes: [UInt8]) -> [PlaylistEntry]? {
        guard let root = try? XMLDocument.parse(bytes), root.name == "playlist", root.namespace == Self.namespace else { return nil }
        let tracks = root.first("trackList", namespace: Self.namespace)?.all("track", namespace: Self.namespace) ?? []
        return tracks.compactMap { track in
            guard let location = track.value("location", namespace: Self.namespace)?.trimmingSpaces, !location.isEmpty else { return nil }
            var tag = Tag()
            let fields: [(String, TagType)] = [("title", .title), ("creator", .artist), ("annotation", .comment), ("album", .album), ("trackNum", .track)]
            for (element, type) in fields {
                if let value = track.value(element, namespace: Self.namespace)?.trimmingSpaces, !value.isEmpty { tag.add(type, value) }
            }
            if let duration = track.value("duration", namespace: Self.namespace).flatMap({ Int($0.trimmingSpaces) }), duration > 0 {
                tag.duration = duration
            }
            return PlaylistEntry(uri: location, tag: tag)
        }
    }
}
