import Foundation

/// Case-insensitive comparison for `search`: full Unicode case folding (Cyrillic, accents,
/// ß → ss) like MPD's ICU folding, with an allocation-free path for ASCII, which is most tags.
enum CaseFolding {
    static func fold(_ text: String) -> String {
        isASCII(text) ? text.lowercased() : text.folding(options: [.caseInsensitive], locale: nil)
    }

    static func isASCII(_ text: String) -> Bool { text.utf8.allSatisfy { $0 < 0x80 } }

    /// `haystack` folded equals `foldedNeedle`.
    static func equals(_ haystack: String, foldedNeedle: String, needleIsASCII: Bool) -> Bool {
        if needleIsASCII, isASCII(haystack) {
            return haystack.utf8.count == foldedNeedle.utf8.count
                && zip(haystack.utf8, foldedNeedle.utf8).allSatisfy { lower($0) == $1 }
        }
        return fold(haystack) == foldedNeedle
    }

    /// `foldedNeedle` occurs in `haystack` folded.
    static func contains(_ haystack: String, foldedNeedle: String, needleIsASCII: Bool) -> Bool {
        if foldedNeedle.isEmpty { return true }
        if needleIsASCII, isASCII(haystack) {
            return asciiContains(Array(haystack.utf8), Array(foldedNeedle.utf8))
        }
        return fold(haystack).contains(foldedNeedle)
    }

    private static func asciiContains(_ haystack: [UInt8], _ needle: [UInt8]) -> Bool {
        guard needle.count <= haystack.count else { return false }
        outer: for start in 0...(haystack.count - needle.count) {
            for offset in 0..<needle.count where lower(haystack[start + offset]) != needle[offset] {
                continue outer
            }
            return true
        }
        return false
    }

    @inline(__always) private static func lower(_ byte: UInt8) -> UInt8 {
        byte >= 0x41 && byte <= 0x5A ? byte + 0x20 : byte
    }
}
