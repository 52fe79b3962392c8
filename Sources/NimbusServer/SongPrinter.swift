import NimbusModel
import NimbusProtocol
import NimbusQueue

/// Writes song records exactly as MPD 0.24 orders them: file, Range, Last-Modified, Added, Format, the
/// tag lines (in the song's own order, filtered by the client's tag mask), Time, duration; queue
/// entries add Pos, Id and a non-zero Prio.
enum SongPrinter {
    static func write(_ song: Song, mask: TagMask, into out: inout ResponseWriter) {
        out.field("file", song.uri)
        writeBody(song, mask: mask, into: &out)
    }

    static func writeBody(_ song: Song, range: SongRange? = nil, mask: TagMask, into out: inout ResponseWriter) {
        if let range { writeRange(range, into: &out) }
        if let modified = song.lastModified { out.field("Last-Modified", TimeFormat.iso8601(modified)) }
        if let added = song.added { out.field("Added", TimeFormat.iso8601(added)) }
        if let format = song.format { out.field("Format", format.description) }
        for item in song.tag.items where mask.contains(item.type) {
            out.field(item.type.staticWireName, item.value)
        }
        if var duration = song.tag.duration {
            if let range {
                duration = max(0, (range.end.map { min($0, duration) } ?? duration) - range.start)
            }
            out.field("Time", (duration + 500) / 1000)
            out.field("duration", NumberFormat.seconds(Double(duration) / 1000))
        } else if let range, let end = range.end {
            let duration = end - range.start
            out.field("Time", (duration + 500) / 1000)
            out.field("duration", NumberFormat.seconds(Double(duration) / 1000))
        }
    }

    static func write(_ item: QueueItem, position: Int, mask: TagMask, into out: inout ResponseWriter) {
        out.field("file", item.song.uri)
        writeBody(item.song, range: item.range, mask: mask, into: &out)
        out.field("Pos", position)
        out.field("Id", item.id)
        if item.priority != 0 { out.field("Prio", Int(item.priority)) }
    }

    private static func writeRange(_ range: SongRange, into out: inout ResponseWriter) {
        var text = "\(range.start / 1000).\(milliseconds(range.start))-"
        if let end = range.end { text += "\(end / 1000).\(milliseconds(end))" }
        out.field("Range", text)
    }

    private static func milliseconds(_ value: Int) -> String {
        let text = String(value % 1000)
        return String(repeating: "0", count: 3 - text.count) + text
    }
}
