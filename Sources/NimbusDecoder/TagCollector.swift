import NimbusModel

/// Accumulates tag values the way MPD's TagBuilder does: values are made printable (control
/// characters become spaces, so a value can never break the line protocol) and empty values
/// are dropped.
struct TagCollector {
    private(set) var tag = Tag()
    var replayGain = ReplayGainInfo()
    var mixRamp = MixRampTags()

    /// ReplayGain and MixRamp both ride in free-form tags (comments, TXXX, APE items).
    mutating func noteLoudness(_ key: String, _ value: String) {
        replayGain.note(key, value)
        mixRamp.note(key, value)
    }

    mutating func add(_ type: TagType, _ value: String) {
        if type == .track || type == .disc {
            // MPD's AddTagHandler keeps only the number: "04/12" is "4"; no leading digit, no tag.
            let digits = value.utf8.prefix { $0 >= 0x30 && $0 <= 0x39 }.drop { $0 == 0x30 }
            guard value.utf8.first.map({ $0 >= 0x30 && $0 <= 0x39 }) == true else { return }
            tag.add(type, digits.isEmpty ? "0" : String(decoding: digits, as: UTF8.self))
            return
        }
        let clean = Self.printable(value)
        guard !clean.isEmpty else { return }
        tag.add(type, clean)
    }

    mutating func setDuration(_ milliseconds: Int) {
        tag.duration = milliseconds
    }

    /// MPD's SongTime from a frame count: milliseconds, truncated.
    mutating func setDuration(frames: UInt64, rate: UInt32) {
        guard rate > 0 else { return }
        tag.duration = Int(frames * 1000 / UInt64(rate))
    }

    static func printable(_ value: String) -> String {
        guard value.utf8.contains(where: { $0 < 0x20 }) else { return value }
        return String(decoding: value.utf8.map { $0 < 0x20 ? 0x20 : $0 }, as: UTF8.self)
    }
}

/// Vorbis comments (Ogg Vorbis and FLAC): `KEY=value` with MPD's key table.
enum VorbisComments {
    /// MPD's xiph_tags: names that differ from MPD's own tag names.
    private static let xiphNames: [(String, TagType)] = [
        ("tracknumber", .track), ("discnumber", .disc), ("description", .comment),
        ("movementname", .movement), ("movement", .movementNumber),
    ]

    static func split(_ comment: String) -> (key: String, value: String)? {
        guard let equals = comment.firstIndex(of: "=") else { return nil }
        let key = String(comment[..<equals])
        guard !key.isEmpty else { return nil }
        return (key, String(comment[comment.index(after: equals)...]))
    }

    static func tagType(forKey key: String) -> TagType? {
        let lowered = key.lowercased()
        if let match = xiphNames.first(where: { $0.0 == lowered }) { return match.1 }
        return TagType(name: lowered)
    }

    static func add(_ comment: String, to collector: inout TagCollector, result: inout ScanResult, options: ScanOptions) {
        guard let (key, value) = split(comment) else { return }
        if options.comments { result.comments.append((key, value)) }
        collector.noteLoudness(key, value)
        if options.picture, result.picture == nil, key.caseInsensitiveEquals("METADATA_BLOCK_PICTURE") {
            result.picture = FLACPictureBlock.parse(base64: value)
        }
        if key.caseInsensitiveEquals("CUESHEET") {
            result.cueSheet = value
            return
        }
        if let type = tagType(forKey: key) { collector.add(type, value) }
    }
}

extension String {
    func caseInsensitiveEquals(_ other: String) -> Bool {
        utf8.count == other.utf8.count && lowercased() == other.lowercased()
    }
}
