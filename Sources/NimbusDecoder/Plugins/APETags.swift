import NimbusInput

/// APEv2 items at the end of a file (MP3 taggers put ReplayGain and MixRamp there): the
/// 32-byte `APETAGEX` footer, possibly followed by an ID3v1 tag, points back at the items.
/// Only text items are returned; a tag that does not add up is ignored, never an error.
enum APETags {
    private static let footerBytes = 32

    static func items(in stream: any InputStream) -> [(key: String, value: String)] {
        guard stream.isSeekable, let size = stream.size, size >= Int64(footerBytes) else { return [] }
        var end = size
        if size >= 128, let tail = try? stream.read(at: size - 128, count: 3), tail == Array("TAG".utf8) { end -= 128 }
        guard end >= Int64(footerBytes), let footer = try? stream.read(at: end - Int64(footerBytes), count: footerBytes),
            footer.count == footerBytes, footer.prefix(8).elementsEqual("APETAGEX".utf8)
        else { return [] }
        let tagSize = Int(littleEndian(footer, 12)), count = Int(littleEndian(footer, 16))
        // The size counts the items and the footer; anything larger than a megabyte is not a tag.
        guard tagSize >= footerBytes, tagSize <= 1 << 20, Int64(tagSize) <= end, count <= 4096,
            let body = try? stream.read(at: end - Int64(tagSize), count: tagSize - footerBytes)
        else { return [] }
        var items: [(String, String)] = []
        var offset = 0
        for _ in 0..<count {
            guard offset + 8 < body.count else { break }
            let length = Int(littleEndian(body, offset)), flags = littleEndian(body, offset + 4)
            offset += 8
            guard let nul = body[offset...].firstIndex(of: 0), nul + 1 + length <= body.count else { break }
            let key = String(decoding: body[offset..<nul], as: UTF8.self)
            let value = body[(nul + 1)..<(nul + 1 + length)]
            offset = nul + 1 + length
            // Bits 1–2 give the item type; 0 is UTF-8 text.
            if (flags >> 1) & 3 == 0 { items.append((key, String(decoding: value, as: UTF8.self))) }
        }
        return items
    }

    private static func littleEndian(_ bytes: [UInt8], _ offset: Int) -> UInt32 {
        (0..<4).reduce(0) { $0 | UInt32(bytes[offset + $1]) << (8 * $1) }
    }
}
