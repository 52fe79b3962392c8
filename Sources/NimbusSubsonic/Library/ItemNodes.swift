import Glibc
import NimbusLibrary
import NimbusModel

/// The nodes of a song, an album and an artist, with the fields every client wants. A song always
/// carries `id`, `parent`, `albumId`, `artistId`, `size`, `suffix`, `contentType` and
/// `type` (Amperfy shows empty albums without the first three, Strawberry drops songs
/// without the others); an album always `artist`, `name` and `created`.
enum ItemNodes {
    static let unknownAlbum = "[Unknown Album]"
    static let unknownArtist = "[Unknown Artist]"

    /// The leading whole number of a tag ("3/12" → 3).
    static func number(_ text: String?) -> Int? {
        guard let text else { return nil }
        let (value, digits) = leadingNumber(text.utf8.drop { $0 == 0x20 }, limit: 9)
        return digits == 0 ? nil : value
    }

    static func year(_ tag: Tag) -> Int? {
        guard let date = tag.first(.date) ?? tag.first(.originalDate) else { return nil }
        let (value, digits) = leadingNumber(date.utf8[...], limit: 4)
        return digits == 4 ? value : nil
    }

    /// The value of the ASCII digits a text starts with (at most `limit` of them), and how many
    /// there were (bytes, not Characters: Unicode's numeric property is costly per song).
    private static func leadingNumber(_ bytes: Substring.UTF8View, limit: Int) -> (Int, Int) {
        var value = 0, digits = 0
        for byte in bytes {
            guard byte >= 0x30, byte <= 0x39, digits < limit else { break }
            value = value * 10 + Int(byte - 0x30)
            digits += 1
        }
        return (value, digits)
    }

    /// Disc, then track, then file name.
    static func precedes(_ left: SubsonicLibrary.SongEntry, _ right: SubsonicLibrary.SongEntry) -> Bool {
        let a = (number(left.song.tag.first(.disc)) ?? 0, number(left.song.tag.first(.track)) ?? 0)
        let b = (number(right.song.tag.first(.disc)) ?? 0, number(right.song.tag.first(.track)) ?? 0)
        if a != b { return a < b }
        return left.uri < right.uri
    }

    static func suffix(_ name: String) -> String {
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return "" }
        return String(name[name.index(after: dot)...]).lowercased()
    }

    static let contentTypes: [String: String] = [
        "mp3": "audio/mpeg", "flac": "audio/flac", "ogg": "audio/ogg", "oga": "audio/ogg", "opus": "audio/ogg",
        "m4a": "audio/mp4", "m4b": "audio/mp4", "mp4": "audio/mp4", "aac": "audio/aac", "wav": "audio/wav", "wv": "audio/x-wavpack",
        "aif": "audio/aiff", "aiff": "audio/aiff", "ape": "audio/x-ape", "mpc": "audio/x-musepack", "wma": "audio/x-ms-wma",
        "dsf": "audio/x-dsf", "dff": "audio/x-dff", "mka": "audio/x-matroska", "webm": "audio/webm", "spx": "audio/ogg",
    ]

    static func contentType(_ suffix: String) -> String { contentTypes[suffix] ?? "application/octet-stream" }

    /// ISO 8601 in UTC, as `created` is sent.
    /// `created` of every song of every page: written digit by digit (string interpolation
    /// was 5% of a full sync's CPU).
    static func date(_ seconds: Int64) -> String {
        var time = time_t(max(0, seconds))
        var parts = tm()
        gmtime_r(&time, &parts)
        let year = Int(parts.tm_year + 1900)
        guard (0...9999).contains(year) else { return "1970-01-01T00:00:00.000Z" }
        return String(unsafeUninitializedCapacity: 24) { buffer in
            func put(_ value: Int, _ digits: Int, at start: Int) {
                var value = value
                for index in stride(from: start + digits - 1, through: start, by: -1) {
                    buffer[index] = UInt8(ascii: "0") + UInt8(value % 10)
                    value /= 10
                }
            }
            (buffer[4], buffer[7], buffer[10], buffer[13], buffer[16]) = (UInt8(ascii: "-"), UInt8(ascii: "-"), UInt8(ascii: "T"), UInt8(ascii: ":"), UInt8(ascii: ":"))
            put(0, 3, at: 20)
            (buffer[19], buffer[23]) = (UInt8(ascii: "."), UInt8(ascii: "Z"))
            put(year, 4, at: 0)
            put(Int(parts.tm_mon + 1), 2, at: 5)
            put(Int(parts.tm_mday), 2, at: 8)
            put(Int(parts.tm_hour), 2, at: 11)
            put(Int(parts.tm_min), 2, at: 14)
            put(Int(parts.tm_sec), 2, at: 17)
            return 24
        }
    }

    static func song(_ entry: SubsonicLibrary.SongEntry, in library: SubsonicLibrary, name: String = "song") -> SubsonicNode {
        let song = entry.song, tag = song.tag
        let album = library.albums[entry.album]
        var node = SubsonicNode(name)
        node.attributes.reserveCapacity(32)
        node.set("id", entry.id)
        node.set("parent", entry.parent)
        node.set("isDir", false)
        node.set("title", tag.first(.title) ?? song.name)
        node.set("album", album.name.isEmpty ? unknownAlbum : album.name)
        node.set("artist", tag.first(.artist) ?? (album.artist.isEmpty ? unknownArtist : album.artist))
        node.set("track", number(tag.first(.track)))
        node.set("discNumber", number(tag.first(.disc)))
        node.set("year", year(tag))
        node.set("genre", tag.first(.genre))
        node.set("coverArt", album.id)
        node.set("size", song.size)
        let suffix = suffix(song.name)
        node.set("contentType", contentType(suffix))
        node.set("suffix", suffix)
        let seconds = (tag.duration ?? 0) / 1000
        node.set("duration", seconds)
        if let duration = tag.duration, duration > 0, song.size > 0 {
            node.set("bitRate", Int(song.size * 8 / Int64(duration)))
        }
        if let format = song.format {
            node.set("samplingRate", Int(format.sampleRate))
            node.set("channelCount", Int(format.channels))
            if format.sample.bytes <= 4 { node.set("bitDepth", format.sample.bytes * 8) }
        }
        node.set("path", entry.uri)
        node.set("created", date(song.added ?? song.modified))
        node.set("albumId", album.id)
        node.set("artistId", library.artists[album.artistIndex].id)
        node.set("type", "music")
        node.set("mediaType", "song")
        node.set("isVideo", false)
        if let gain = library.replayGain?(entry.uri, song.modified) {
            var replayGain = SubsonicNode("replayGain")
            replayGain.set("trackGain", gain.trackGain)
            replayGain.set("trackPeak", gain.trackPeak)
            if let albumGain = gain.albumGain { replayGain.set("albumGain", albumGain) }
            if let albumPeak = gain.albumPeak { replayGain.set("albumPeak", albumPeak) }
            // The gain a decoder applies before ReplayGain: Opus's header gain, which the box
            // does not read; none for other formats.
            if suffix != "opus" { replayGain.set("baseGain", 0.0) }
            node.add(replayGain)
        }
        return node
    }

    static func album(_ index: Int, in library: SubsonicLibrary, name: String = "album") -> SubsonicNode {
        let album = library.albums[index]
        var node = SubsonicNode(name)
        node.set("id", album.id)
        let title = album.name.isEmpty ? unknownAlbum : album.name
        node.set("name", title)
        // The old (folder) form's fields too: getAlbumList clients read `title`, `parent`, `isDir`.
        node.set("title", title)
        node.set("album", title)
        node.set("isDir", true)
        node.set("artist", album.artist.isEmpty ? unknownArtist : album.artist)
        node.set("artistId", library.artists[album.artistIndex].id)
        node.set("coverArt", album.id)
        node.set("songCount", album.songs.count)
        node.set("duration", album.duration / 1000)
        node.set("created", date(album.created == Int64.max ? library.updated : album.created))
        node.set("year", album.year)
        node.set("genre", album.genre)
        return node
    }

    static func artist(_ index: Int, in library: SubsonicLibrary, name: String = "artist") -> SubsonicNode {
        let artist = library.artists[index]
        var node = SubsonicNode(name)
        node.set("id", artist.id)
        node.set("name", artist.name.isEmpty ? unknownArtist : artist.name)
        if let first = artist.albums.first { node.set("coverArt", library.albums[first].id) }
        node.set("albumCount", artist.albums.count)
        return node
    }
}
