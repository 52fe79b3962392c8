import Foundation

/// Case-insensitive comparison for `search`: as MPD 0.24 with ICU, Unicode NFKC normalization
/// with full case folding (Cyrillic, accents, ß → ss, ligatures, ＦＵＬＬＷＩＤＴＨ) and punctuation
/// transliterated to ASCII (’ → ', “ → "), with an allocation-free path for ASCII, which is
/// most tags.
enum CaseFolding {
    private static let punctuation = StringTransform("[:Punctuation:] Latin-ASCII")

    static func fold(_ text: String) -> String {
        guard !isASCII(text) else { return text.lowercased() }
        let folded = text.precomposedStringWithCompatibilityMapping.folding(options: [.caseInsensitive], locale: nil)
            .precomposedStringWithCompatibilityMapping
        return folded.applyingTransform(punctuation, reverse: false) ?? folded
    }

    /// `haystack` folded starts with `foldedNeedle`.
    static func hasPrefix(_ haystack: String, foldedNeedle: String, needleIsASCII: Bool) -> Bool {
        if needleIsASCII, isASCII(haystack) {
            return haystack.utf8.count >= foldedNeedle.utf8.count
                && zip(haystack.utf8, foldedNeedle.utf8).allSatisfy { lower($0) == $1 }
        }
        return fold(haystack).utf8.starts(with: foldedNeedle.utf8)
    }

    static func isASCII(_ text: String) -> Bool { text.utf8.allSatisfy { $0 < 0x80 } }

    /// `haystack` folded equals `foldedNeedle`.
    static func equals(_ haystack: String, foldedNeedle: String, needleIsASCII: Bool) -> Bool {
        if needleIsASCII {
            var haystack = haystack
            var needle = foldedNeedle
            let result: Bool? = haystack.withUTF8 { text in
                needle.withUTF8 { pattern in
                    guard !text.contains(where: { $0 >= 0x80 }) else { return nil }
                    return text.count == pattern.count && zip(text, pattern).allSatisfy { lower($0) == $1 }
                }
            }
            if let result { return result }
        }
        return fold(haystack) == foldedNeedle
    }

    /// `foldedNeedle` occurs in `haystack` folded. The ASCII path works on the UTF-8 bytes in
    /// place: `search any` runs it for every tag value of every song.
    static func contains(_ haystack: String, foldedNeedle: String, needleIsASCII: Bool) -> Bool {
        if foldedNeedle.isEmpty { return true }
        if needleIsASCII {
            var haystack = haystack
            var needle = foldedNeedle
            let result: Bool? = haystack.withUTF8 { text in
                needle.withUTF8 { pattern in asciiContains(text, pattern) }
            }
            if let result { return result }
        }
        return fold(haystack).contains(foldedNeedle)
    }

    /// nil when `text` is not ASCII (the caller then folds properly).
    private static func asciiContains(_ text: UnsafeBufferPointer<UInt8>, _ pattern: UnsafeBufferPointer<UInt8>) -> Bool? {
        var found = false
        let first = pattern[0]
        if text.count >= pattern.count {
            outer: for start in 0...(text.count - pattern.count) {
                let byte = text[start]
                if byte >= 0x80 { return nil }
                guard !found, lower(byte) == first else { continue }
                for offset in 1..<pattern.count where lower(text[start + offset]) != pattern[offset] {
                    continue outer
                }
                found = true
            }
            for index in (text.count - pattern.count + 1)..<text.count where text[index] >= 0x80 { return nil }
        } else if text.contains(where: { $0 >= 0x80 }) {
            return nil
        }
        return found
    }

    @inline(__always) private static func lower(_ byte: UInt8) -> UInt8 {
        byte >= 0x41 && byte <= 0x5A ? byte + 0x20 : byte
    }
}
