/// Timed lyrics kept in ID3v2 SYLT frames (in milliseconds), for the phones' lyrics: written
/// out as LRC lines (`SYNCEDLYRICS`, `[mm:ss.xx]line`), the one form every reader of comments
/// sees for timed lyrics. USLT comes from libmpg123, which rewrites those frames in the raw
/// tag as it parses them (see ID3Tags.lyrics).
enum ID3Lyrics {
    static func comments(in tag: [UInt8]) -> [(key: String, value: String)] {
        var found: [(key: String, value: String)] = []
        for (id, body) in ID3Frames.frames(in: tag) {
            if id == "SYLT" || id == "SLT", body.count > 6, body[body.startIndex + 4] == 2 {
                let encoding = body[body.startIndex]
                var rest = body.dropFirst(6)
                _ = text(&rest, encoding: encoding)
                var lines: [String] = []
                while !rest.isEmpty {
                    let line = text(&rest, encoding: encoding)
                    guard rest.count >= 4 else { break }
                    let time = ID3Frames.bigEndian(rest.prefix(4))
                    rest = rest.dropFirst(4)
                    lines.append(lrcTime(time) + line.trimmingLeadingNewline)
                }
                if !lines.isEmpty { found.append(("SYNCEDLYRICS", lines.joined(separator: "\n"))) }
            }
        }
        return found
    }

    static func lrcTime(_ milliseconds: Int) -> String {
        let minutes = milliseconds / 60000, seconds = milliseconds / 1000 % 60, hundredths = milliseconds / 10 % 100
        func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return "[\(two(minutes)):\(two(seconds)).\(two(hundredths))]"
    }

    /// One terminated string in the frame's encoding (0 Latin-1, 1 UTF-16 with BOM,
    /// 2 UTF-16BE, 3 UTF-8), taken off the front of `bytes`.
    static func text(_ bytes: inout ArraySlice<UInt8>, encoding: UInt8) -> String {
        let wide = encoding == 1 || encoding == 2
        var end = bytes.startIndex
        if wide {
            while end + 1 < bytes.endIndex, !(bytes[end] == 0 && bytes[end + 1] == 0) { end += 2 }
        } else {
            while end < bytes.endIndex, bytes[end] != 0 { end += 1 }
        }
        let raw = bytes[bytes.startIndex..<min(end, bytes.endIndex)]
        bytes = bytes[min(bytes.endIndex, end + (wide ? 2 : 1))...]
        switch encoding {
        case 0: return String(raw.map { Character(Unicode.Scalar($0)) })
        case 3: return String(decoding: raw, as: UTF8.self)
        default:
            var units: [UInt16] = []
            var bigEndian = encoding == 2
            var index = raw.startIndex
            if encoding == 1, raw.count >= 2 {
                if raw[index] == 0xFF && raw[index + 1] == 0xFE { bigEndian = false; index += 2 }
                else if raw[index] == 0xFE && raw[index + 1] == 0xFF { bigEndian = true; index += 2 }
            }
            while index + 1 < raw.endIndex {
                let pair = bigEndian ? UInt16(raw[index]) << 8 | UInt16(raw[index + 1]) : UInt16(raw[index + 1]) << 8 | UInt16(raw[index])
                units.append(pair)
                index += 2
            }
            return String(decoding: units, as: UTF16.self)
        }
    }
}

extension String {
    /// SYLT lines often carry their line break at the front.
    fileprivate var trimmingLeadingNewline: String {
        var text = Substring(self)
        while let first = text.first, first == "\n" || first == "\r" { text.removeFirst() }
        return String(text)
    }
}
