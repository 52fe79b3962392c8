import NimbusModel
import NimbusProtocol

/// Writes song records exactly as MPD 0.23 orders them: file, Last-Modified, Format, the tag
/// lines (in the song's own order, filtered by the client's tag mask), Time, duration.
enum SongPrinter {
    static func write(_ song: Song, mask: TagMask, into out: inout ResponseWriter) {
        out.field("file", song.uri)
        writeBody(song, mask: mask, into: &out)
    }

    static func writeBody(_ song: Song, mask: TagMask, into out: inout ResponseWriter) {
        if let modified = song.lastModified { out.field("Last-Modified", TimeFormat.iso8601(modified)) }
        if let format = song.format { out.field("Format", format.description) }
        for item in song.tag.items where mask.contains(item.type) {
            out.field(item.type.staticWireName, item.value)
        }
        if let duration = song.tag.duration {
            out.field("Time", (duration + 500) / 1000)
            out.field("duration", NumberFormat.seconds(Double(duration) / 1000))
        }
    }
}
