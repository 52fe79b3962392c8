import CCue
import NimbusModel
import Synchronization

/// One audio track of a CUE sheet, as MPD's CUE playlist plugin makes it a song: the file it
/// lies in (as the sheet writes it, relative to the sheet's folder), where it starts and ends
/// in milliseconds (`end` nil: to the end of the file), and its tags — the disc's `TITLE` as
/// Album, its `PERFORMER` as AlbumArtist, the track's `TITLE` and `PERFORMER` as Title and
/// Artist, the track number, and `REM` lines naming a tag MPD knows (`REM DATE`, `REM GENRE`,
/// `REM COMMENT`, `REM DISC`).
public struct CueTrack: Sendable, Equatable {
    public var file: String
    public var number: Int
    public var start: Int
    public var end: Int?
    public var tag: Tag
}

/// CUE sheets read with libcue. libcue's parser (bison and flex with global state) is not
/// reentrant, so one sheet is parsed at a time; a sheet is small and parsed once per change.
public enum CueSheet {
    /// A sheet larger than this is no sheet (MPD has no bound; a real one is a few KB).
    public static let maximumBytes = 1 << 20
    private static let parsing = Mutex(())

    /// The audio tracks of a sheet, in order; empty when the bytes are no sheet libcue reads.
    /// A sheet that is not UTF-8 (a legacy rip's Windows-1252) is converted first, and a
    /// UTF-8 byte-order mark dropped.
    public static func tracks(_ bytes: [UInt8]) -> [CueTrack] {
        guard bytes.count <= maximumBytes else { return [] }
        var text = Self.text(bytes)
        // libcue's grammar ends each line with its newline: a sheet saved without a last one
        // would be a syntax error.
        if !text.hasSuffix("\n") { text += "\n" }
        guard !text.utf8.contains(0) else { return [] }
        let (header, order) = Self.header(text)
        return parsing.withLock { _ -> [CueTrack] in
            guard let cd = cue_parse_string(text) else { return [] }
            defer { cd_delete(cd) }
            return tracks(of: cd, header: header, order: order)
        }
    }

    private static func tracks(of cd: OpaquePointer, header remarks: [TagItem], order: [TagType: Int]) -> [CueTrack] {
        var disc: [TagItem] = []
        if let text = cd_get_cdtext(cd) {
            if let value = string(cdtext_get(PTI_GENRE, text)) { disc.append(TagItem(.genre, value)) }
            if let value = string(cdtext_get(PTI_PERFORMER, text)) { disc.append(TagItem(.albumArtist, value)) }
            if let value = string(cdtext_get(PTI_TITLE, text)) { disc.append(TagItem(.album, value)) }
        }
        if let rem = cd_get_rem(cd), let date = string(rem_get(UInt32(REM_DATE.rawValue), rem)) {
            disc.append(TagItem(.date, date))
        }
        for item in remarks where !disc.contains(where: { $0.type == item.type }) { disc.append(item) }
        // In the sheet's order, as MPD adds them line by line.
        disc.sort { (order[$0.type] ?? Int.max) < (order[$1.type] ?? Int.max) }
        var result: [CueTrack] = []
        let count = cd_get_ntrack(cd)
        guard count > 0 else { return [] }
        for index in 1...count {
            guard let track = cd_get_track(cd, Int32(index)), track_get_mode(track) == MODE_AUDIO,
                let file = string(track_get_filename(track))
            else { continue }
            let frames = track_get_start(track)
            guard frames >= 0 else { continue }
            var items = disc
            items.append(TagItem(.track, index < 10 ? "0\(index)" : String(index)))
            if let text = track_get_cdtext(track) {
                if let value = string(cdtext_get(PTI_TITLE, text)) { items.append(TagItem(.title, value)) }
                if let value = string(cdtext_get(PTI_PERFORMER, text)) { items.append(TagItem(.artist, value)) }
            }
            // As MPD counts a position: whole seconds, then the frame's milliseconds cut.
            let start = Int(frames / 75) * 1000 + Int(frames % 75) * 1000 / 75
            if var previous = result.last, previous.file == file, previous.end == nil, previous.start < start {
                previous.end = start
                result[result.count - 1] = previous
            }
            result.append(CueTrack(file: file, number: Int(index), start: start, end: nil, tag: Tag(items: items)))
        }
        return result
    }

    /// The header (before the first `FILE` or `TRACK`): its `REM NAME value` lines naming a
    /// tag MPD knows (libcue keeps only `DATE` and the ReplayGain ones), in MPD's way — the
    /// name is any tag name — and the line each disc tag comes from, for their order.
    static func header(_ text: String) -> (remarks: [TagItem], order: [TagType: Int]) {
        var items: [TagItem] = []
        var order: [TagType: Int] = [:]
        for (number, line) in text.split(whereSeparator: { $0 == "\n" || $0 == "\r" }).enumerated() {
            let words = line.split(separator: " ", maxSplits: 2, omittingEmptySubsequences: true)
            guard let first = words.first else { continue }
            if first == "TRACK" || first == "FILE" { break }
            if first == "PERFORMER" { order[.albumArtist] = order[.albumArtist] ?? number }
            if first == "TITLE" { order[.album] = order[.album] ?? number }
            guard first == "REM", words.count == 3, let type = TagType(name: String(words[1])) else { continue }
            order[type] = order[type] ?? number
            guard type != .date, type != .genre else { continue }
            var value = Substring(words[2]).drop { $0 == " " || $0 == "\t" }
            while let last = value.last, last == " " || last == "\t" { value = value.dropLast() }
            if value.count >= 2, value.first == "\"", value.last == "\"" { value = value.dropFirst().dropLast() }
            if !value.isEmpty { items.append(TagItem(type, String(value))) }
        }
        return (items, order)
    }

    static func text(_ bytes: [UInt8]) -> String {
        var body = bytes[...]
        if body.starts(with: [0xEF, 0xBB, 0xBF]) { body = body.dropFirst(3) }
        if let text = String(validating: body, as: UTF8.self) { return text }
        return String(body.map { Windows1252.character($0) })
    }

    private static func string(_ pointer: UnsafePointer<CChar>?) -> String? {
        guard let pointer else { return nil }
        let value = String(cString: pointer)
        return value.isEmpty ? nil : value
    }
}

/// Windows-1252, the charset of most legacy rips' sheets: Latin-1 with printable characters
/// where Latin-1 has C1 controls.
enum Windows1252 {
    private static let high: [UInt32] = [
        0x20AC, 0x81, 0x201A, 0x0192, 0x201E, 0x2026, 0x2020, 0x2021, 0x02C6, 0x2030, 0x0160, 0x2039, 0x0152, 0x8D, 0x017D, 0x8F,
        0x90, 0x2018, 0x2019, 0x201C, 0x201D, 0x2022, 0x2013, 0x2014, 0x02DC, 0x2122, 0x0161, 0x203A, 0x0153, 0x9D, 0x017E, 0x0178,
    ]

    static func character(_ byte: UInt8) -> Character {
        let scalar = (0x80..<0xA0).contains(byte) ? high[Int(byte) - 0x80] : UInt32(byte)
        return Character(Unicode.Scalar(scalar) ?? "?")
    }
}
