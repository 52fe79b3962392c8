import Foundation
import NimbusInput

/// `getLyricsBySongId` (the `songLyrics` extension) and `getLyrics`: from an `.lrc` file
/// beside the song (timed lines) and from its tags (`LYRICS`, `UNSYNCEDLYRICS`, ID3 USLT and
/// SYLT, MP4 `©lyr`), read through the storage — so cloud and share songs are read through
/// the range cache, which already holds their heads.
extension SubsonicService {
    enum LyricsEndpoints {
        static func getLyricsBySongId(_ call: SubsonicCall) throws(SubsonicError) -> SubsonicReply {
            guard let entry = call.library.song(try call.arguments.required("id")) else { throw .notFound("Song") }
            let artist = entry.song.tag.first(.artist) ?? "", title = entry.song.tag.first(.title) ?? entry.song.name
            var list = SubsonicNode("lyricsList")
            list.add(list: "structuredLyrics", lyrics(call, uri: entry.uri).map { structured($0, artist: artist, title: title) })
            return .node(list)
        }

        static func getLyrics(_ call: SubsonicCall) throws(SubsonicError) -> SubsonicReply {
            let artist = try call.arguments.optional("artist")?.lowercased() ?? ""
            let title = try call.arguments.optional("title")?.lowercased() ?? ""
            var node = SubsonicNode("lyrics")
            guard !artist.isEmpty || !title.isEmpty else { return .node(node) }
            let library = call.library
            for index in library.songs.indices.prefix(1_000_000) {
                let song = library.songs[index].song
                guard artist.isEmpty || song.tag.first(.artist)?.lowercased() == artist,
                    title.isEmpty || song.tag.first(.title)?.lowercased() == title
                else { continue }
                guard let found = lyrics(call, uri: library.songs[index].uri).first else { continue }
                node.set("artist", song.tag.first(.artist))
                node.set("title", song.tag.first(.title))
                node.text = found.plainText
                break
            }
            return .node(node)
        }
    }

    /// Every set of lyrics the song has: the `.lrc` file first (it is what a user put there).
    static func lyrics(_ call: SubsonicCall, uri: String) -> [LyricsText] {
        var found: [LyricsText] = []
        let lrc = (uri as NSString).deletingPathExtension + ".lrc"
        if let stream = try? call.backend.open(lrc), let bytes = try? read(stream, limit: LyricsText.maxBytes),
            let text = LyricsText.parse(String(decoding: bytes, as: UTF8.self))
        {
            found.append(text)
        }
        let comments = (try? call.backend.comments?(uri)) ?? []
        for (key, value) in comments {
            let name = key.uppercased()
            guard ["LYRICS", "UNSYNCEDLYRICS", "UNSYNCED LYRICS", "SYNCEDLYRICS", "©LYR"].contains(name) || name.hasPrefix("LYRICS-") else {
                continue
            }
            let language = name.hasPrefix("LYRICS-") && name.count == 10 ? String(key.suffix(3)).lowercased() : "und"
            if let text = LyricsText.parse(value, language: language), !found.contains(text) { found.append(text) }
        }
        return found
    }

    private static func read(_ stream: any NimbusInput.InputStream, limit: Int) throws -> [UInt8] {
        if let size = stream.size, size > Int64(limit) { return [] }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while bytes.count <= limit {
            let count = try buffer.withUnsafeMutableBytes { try stream.read(into: $0) }
            guard count > 0 else { break }
            bytes += buffer[..<count]
        }
        return bytes.count > limit ? [] : bytes
    }

    static func structured(_ lyrics: LyricsText, artist: String, title: String) -> SubsonicNode {
        var node = SubsonicNode("structuredLyrics")
        node.set("displayArtist", artist)
        node.set("displayTitle", title)
        node.set("lang", lyrics.language)
        node.set("offset", lyrics.offset)
        node.set("synced", lyrics.synced)
        node.add(
            list: "line",
            lyrics.lines.map { line in
                var item = SubsonicNode("line")
                item.set("start", line.start)
                // Text in XML, as Navidrome writes it (`<line start="0">…</line>`); `value` in JSON.
                item.text = line.value
                return item
            })
        return node
    }
}
