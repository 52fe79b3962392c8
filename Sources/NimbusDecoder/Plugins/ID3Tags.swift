import CMpg123
import NimbusModel

/// Maps the ID3 data libmpg123 parsed to MPD tags, in the order MPD's Id3Scan imports
/// them (which is the order MPD prints them), so responses match MPD line for line.
enum ID3Tags {
    /// (frame ids, tag) in MPD's import order. ID3v2.3 writes the year as TYER, v2.4 as TDRC;
    /// libid3tag folds both into TDRC, so both map to Date at the same place.
    private static let textFrames: [([String], TagType)] = [
        (["TPE1"], .artist), (["TPE2"], .albumArtist), (["TSOP"], .artistSort), (["TSOA"], .albumSort),
        (["TSO2"], .albumArtistSort), (["TIT2"], .title), (["TALB"], .album), (["TRCK"], .track),
        (["TDRC", "TYER"], .date), (["TDOR"], .originalDate), (["TCON"], .genre), (["TCOM"], .composer),
        (["TPE3"], .conductor), (["TPE4"], .performer), (["TIT1"], .grouping),
    ]
    private static let lateTextFrames: [([String], TagType)] = [
        (["TPOS"], .disc), (["TPUB"], .label), (["TMOO"], .mood), (["TSOT"], .titleSort),
    ]

    /// TXXX descriptions MPD recognises (case-sensitive, as in MPD).
    private static let userTextTags: [String: TagType] = [
        "ALBUMARTISTSORT": .albumArtistSort, "MusicBrainz Artist Id": .musicBrainzArtistID,
        "MusicBrainz Album Id": .musicBrainzAlbumID, "MusicBrainz Album Artist Id": .musicBrainzAlbumArtistID,
        "MusicBrainz Track Id": .musicBrainzTrackID, "MusicBrainz Release Track Id": .musicBrainzReleaseTrackID,
        "MusicBrainz Work Id": .musicBrainzWorkID, "MusicBrainz Release Group Id": .musicBrainzReleaseGroupID,
    ]

    /// Adds the tags to `collector` and returns the first picture when `wantPicture`.
    @discardableResult
    static func collect(from handle: OpaquePointer, into collector: inout TagCollector, wantPicture: Bool) -> Picture? {
        var v1: UnsafeMutablePointer<mpg123_id3v1>?
        var v2: UnsafeMutablePointer<mpg123_id3v2>?
        guard mpg123_meta_check(handle) & Int32(MPG123_ID3) != 0, mpg123_id3(handle, &v1, &v2) == MPG123_OK.rawValue else {
            return nil
        }
        if let v2, v2.pointee.texts > 0 || v2.pointee.extras > 0 || v2.pointee.comments > 0 || v2.pointee.pictures > 0 {
            collectV2(v2.pointee, raw: rawV2(handle), into: &collector)
            if wantPicture, v2.pointee.pictures > 0 {
                let apic = v2.pointee.picture[0]
                return Picture(
                    mimeType: string(apic.mime_type).first,
                    data: Array(UnsafeBufferPointer(start: apic.data, count: apic.size)))
            }
        } else if let v1 {
            collectV1(v1.pointee, into: &collector)
        }
        return nil
    }

    private static func collectV2(_ tag: mpg123_id3v2, raw: [UInt8]?, into collector: inout TagCollector) {
        let texts = (0..<tag.texts).map { tag.text[$0] }
        func importFrames(_ table: [([String], TagType)]) {
            for (ids, type) in table {
                for text in texts where ids.contains(frameID(text)) {
                    for value in string(text.text) { collector.add(type, normalized(value, for: type)) }
                }
            }
        }
        importFrames(textFrames)
        for index in 0..<tag.comments {
            for value in string(tag.comment_list[index].text) { collector.add(.comment, trimmed(value)) }
        }
        importFrames(lateTextFrames)
        for index in 0..<tag.extras {
            let extra = tag.extra[index]
            guard let name = string(extra.description).first else { continue }
            if let value = string(extra.text).first { collector.noteLoudness(name, value) }
            guard let type = userTextTags[name] else { continue }
            for value in string(extra.text) { collector.add(type, trimmed(value)) }
        }
        for id in UFIDFrames.musicBrainzTrackIDs(in: raw ?? []) { collector.add(.musicBrainzTrackID, id) }
    }

    private static func collectV1(_ tag: mpg123_id3v1, into collector: inout TagCollector) {
        let title = latin1(tag.title), artist = latin1(tag.artist), album = latin1(tag.album), year = latin1(tag.year)
        let comment = withUnsafeBytes(of: tag.comment) { Array($0) }
        collector.add(.artist, artist)
        collector.add(.title, title)
        collector.add(.album, album)
        if comment[28] == 0 && comment[29] != 0 { collector.add(.track, String(comment[29])) }
        collector.add(.date, year)
        if let genre = ID3Genres.name(Int(tag.genre)) { collector.add(.genre, genre) }
        collector.add(.comment, latin1Bytes(comment[0..<(comment[28] == 0 ? 28 : 30)]))
    }

    private static func frameID(_ text: mpg123_text) -> String {
        withUnsafeBytes(of: text.id) { String(decoding: $0, as: UTF8.self) }
    }

    /// The values of an mpg123_string: several null-separated strings for ID3v2.4 lists.
    static func string(_ value: mpg123_string) -> [String] {
        guard let pointer = value.p, value.fill > 1 else { return [] }
        let bytes = UnsafeRawBufferPointer(start: pointer, count: value.fill - 1)
        return bytes.split(separator: 0, omittingEmptySubsequences: false).map { String(decoding: $0, as: UTF8.self) }
    }

    private static func normalized(_ value: String, for type: TagType) -> String {
        let value = trimmed(value)
        if type == .genre, !value.isEmpty, value.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }), let index = Int(value) {
            return ID3Genres.name(index) ?? value
        }
        return value
    }

    private static func trimmed(_ value: String) -> String {
        var scalars = Substring(value)
        while let first = scalars.first, first.isWhitespace { scalars.removeFirst() }
        while let last = scalars.last, last.isWhitespace { scalars.removeLast() }
        return String(scalars)
    }

    private static func latin1<T>(_ field: T) -> String {
        withUnsafeBytes(of: field) { latin1Bytes(ArraySlice($0)) }
    }

    private static func latin1Bytes(_ bytes: ArraySlice<UInt8>) -> String {
        let end = bytes.firstIndex(of: 0) ?? bytes.endIndex
        let scalars = bytes[bytes.startIndex..<end].map { Character(Unicode.Scalar($0)) }
        return trimmed(String(scalars))
    }

    /// The texts of the USLT (unsynchronised lyrics) frames, as `LYRICS` comments.
    static func lyrics(_ handle: OpaquePointer) -> [(key: String, value: String)] {
        var v1: UnsafeMutablePointer<mpg123_id3v1>?
        var v2: UnsafeMutablePointer<mpg123_id3v2>?
        guard mpg123_meta_check(handle) & Int32(MPG123_ID3) != 0, mpg123_id3(handle, &v1, &v2) == MPG123_OK.rawValue, let v2 else { return [] }
        var found: [(key: String, value: String)] = []
        // libmpg123 keeps USLT frames with the text frames (they are not listed as comments).
        let frames = (0..<v2.pointee.texts).map { v2.pointee.text[$0] } + (0..<v2.pointee.comments).map { v2.pointee.comment_list[$0] }
        for frame in frames where frameID(frame) == "USLT" {
            let text = string(frame.text).filter { !$0.isEmpty }.joined(separator: "\n")
            if !text.isEmpty { found.append(("LYRICS", text)) }
        }
        return found
    }

    /// The raw ID3v2 tag, for the frames libmpg123 does not expose (SYLT).
    static func rawTag(_ handle: OpaquePointer) -> [UInt8]? {
        guard mpg123_meta_check(handle) & Int32(MPG123_ID3) != 0 else { return nil }
        return rawV2(handle)
    }

    private static func rawV2(_ handle: OpaquePointer) -> [UInt8]? {
        var v1: UnsafeMutablePointer<UInt8>?
        var v1Size = 0
        var v2: UnsafeMutablePointer<UInt8>?
        var v2Size = 0
        guard mpg123_id3_raw(handle, &v1, &v1Size, &v2, &v2Size) == MPG123_OK.rawValue, let v2, v2Size > 0 else { return nil }
        return Array(UnsafeBufferPointer(start: v2, count: v2Size))
    }
}
