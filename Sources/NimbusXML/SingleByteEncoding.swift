import CExpat
import Glibc

/// Expat reads UTF-8, UTF-16, ISO-8859-1 and US-ASCII itself. Feeds and playlists also arrive
/// in windows-1251, KOI8-R, ISO-8859-5 and the like; for any single-byte charset glibc's iconv
/// knows, this fills expat's 256-entry table. Multi-byte charsets (Shift_JIS, GBK) are not
/// tables and stay refused, with expat's "unknown encoding" error.
enum SingleByteEncoding {
    static let handler: XML_UnknownEncodingHandler = { _, name, info in
        guard let name, let info, let table = table(for: String(cString: name)) else { return 0 }
        withUnsafeMutableBytes(of: &info.pointee.map) { raw in
            let map = raw.bindMemory(to: Int32.self)
            for index in 0..<256 { map[index] = table[index] }
        }
        info.pointee.data = nil
        info.pointee.convert = nil
        info.pointee.release = nil
        return 1
    }

    /// Each byte's Unicode scalar, -1 where the charset has none; nil when iconv does not know
    /// the charset or a byte starts a multi-byte sequence.
    static func table(for charset: String) -> [Int32]? {
        let converter = iconv_open("UTF-32LE", charset)
        guard let converter, converter != iconv_t(bitPattern: -1) else { return nil }
        defer { iconv_close(converter) }
        var table = [Int32](repeating: -1, count: 256)
        for byte in 0..<256 {
            var input = [CChar(bitPattern: UInt8(byte))]
            var output = [UInt8](repeating: 0, count: 8)
            let converted = input.withUnsafeMutableBufferPointer { inBuffer in
                output.withUnsafeMutableBufferPointer { outBuffer -> Int in
                    var inPointer: UnsafeMutablePointer<CChar>? = inBuffer.baseAddress
                    var inLeft = 1
                    var outPointer: UnsafeMutablePointer<CChar>? = UnsafeMutableRawPointer(outBuffer.baseAddress!)
                        .assumingMemoryBound(to: CChar.self)
                    var outLeft = 8
                    _ = iconv(converter, nil, nil, nil, nil)
                    guard iconv(converter, &inPointer, &inLeft, &outPointer, &outLeft) != -1 else {
                        return errno == EINVAL ? -2 : -1
                    }
                    return 8 - outLeft
                }
            }
            if converted == -2 { return nil }
            guard converted == 4 else { continue }
            table[byte] = Int32(output[0]) | Int32(output[1]) << 8 | Int32(output[2]) << 16 | Int32(output[3]) << 24
        }
        return table
    }
}
