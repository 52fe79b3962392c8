import NimbusLibrary
import NimbusModel
import NimbusProtocol
import NimbusQueue

/// Writes song records exactly as MPD 0.24 orders them: file, Range, Last-Modified, Added, Format, the
/// tag lines (in the song's own order, filtered by the client's tag mask), Time, duration; queue
/// entries add Pos, Id and a non-zero Prio.
enum SongPrinter {
    /// A CUE track shows its part of the file as `Range`, as MPD shows it.
    static func write(_ song: Song, mask: TagMask, into out: inout ResponseWriter) {
        out.field("file", song.uri)
        writeBody(song, range: song.target.map { SongRange(start: $0.start, end: $0.end) }, mask: mask, into: &out)
    }

    static func writeBody(_ song: Song, range: SongRange? = nil, mask: TagMask, into out: inout ResponseWriter) {
        writeBody(
            modified: song.lastModified, added: song.added, format: song.format, tag: song.tag, range: range,
            trackStart: song.target?.start, mask: mask, into: &out)
    }

    /// A library song written where it lies, without making a `Song` (a listing of thousands).
    static func write(_ song: LibrarySong, in directory: String, mask: TagMask, into out: inout ResponseWriter) {
        out.field("file", directory: directory, name: song.name)
        let target = song.target
        writeBody(
            modified: song.modified, added: song.added, format: song.format, tag: song.tag,
            range: target.map { SongRange(start: $0.start, end: $0.end) }, trackStart: target?.start, mask: mask, into: &out)
    }

    private static func writeBody(
        modified: Int64?, added: Int64?, format: AudioFormat?, tag: borrowing Tag, range: SongRange?, trackStart: Int? = nil,
        mask: TagMask, into out: inout ResponseWriter
    ) {
        if let range { writeRange(range, into: &out) }
        if let modified { out.field("Last-Modified", iso8601: modified) }
        if let added { out.field("Added", iso8601: added) }
        if let format { out.field("Format", format: format) }
        for item in tag.items where mask.contains(item.type) {
            out.field(item.type.staticWireName, item.value)
        }
        // A CUE track's tag holds its own length: as a file length it ends past its start.
        if var duration = tag.duration.map({ $0 + (trackStart ?? 0) }) {
            if let range {
                duration = max(0, (range.end.map { min($0, duration) } ?? duration) - range.start)
            }
            out.field("Time", (duration + 500) / 1000)
            out.field("duration", thousandths: duration)
        } else if let range, let end = range.end {
            let duration = end - range.start
            out.field("Time", (duration + 500) / 1000)
            out.field("duration", thousandths: duration)
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
