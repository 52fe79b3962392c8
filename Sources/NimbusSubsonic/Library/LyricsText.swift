/// Lyrics as found — a tag's text or an `.lrc` file — made into the OpenSubsonic
/// `structuredLyrics` shape: lines with their start in milliseconds when the text is LRC
/// (`[mm:ss.xx]` before a line, several for a repeated line; `[offset:±ms]`), plain lines
/// otherwise. Input is untrusted: sizes are bounded and an odd line is kept as text.
public struct LyricsText: Sendable, Equatable {
    public struct Line: Sendable, Equatable {
        public var start: Int?
        public var value: String
    }

    public var synced: Bool
    public var lines: [Line]
    public var offset: Int
    public var language: String

    public static let maxBytes = 1 << 20
    static let maxLines = 20_000

    public init(synced: Bool, lines: [Line], offset: Int = 0, language: String = "und") {
        self.synced = synced
        self.lines = lines
        self.offset = offset
        self.language = language
    }

    public static func parse(_ text: String, language: String = "und") -> LyricsText? {
        guard text.utf8.count <= maxBytes else { return nil }
        var timed: [Line] = []
        var plain: [Line] = []
        var offset = 0
        for raw in text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline).prefix(maxLines) {
            var rest = Substring(raw)
            var starts: [Int] = []
            while rest.first == "[", let close = rest.firstIndex(of: "]") {
                let inside = rest[rest.index(after: rest.startIndex)..<close]
                if let time = time(inside) {
                    starts.append(time)
                } else if inside.lowercased().hasPrefix("offset:"), let value = Int(inside.dropFirst(7).trimmingCharacters(in: .whitespaces)) {
                    offset = max(-3_600_000, min(3_600_000, value))
                } else if starts.isEmpty, inside.contains(":") {
                    // An ID tag ([ar:…], [ti:…]): not a line.
                } else {
                    break
                }
                rest = rest[rest.index(after: close)...]
            }
            let value = rest.trimmingCharacters(in: .whitespaces)
            if starts.isEmpty {
                if !(raw.first == "[" && raw.contains(":") && value.isEmpty) { plain.append(Line(start: nil, value: value)) }
            } else {
                for start in starts { timed.append(Line(start: start, value: value)) }
            }
        }
        if !timed.isEmpty {
            timed.sort { ($0.start ?? 0) < ($1.start ?? 0) }
            return LyricsText(synced: true, lines: timed, offset: offset, language: language)
        }
        while plain.last?.value.isEmpty == true { plain.removeLast() }
        while plain.first?.value.isEmpty == true { plain.removeFirst() }
        return plain.isEmpty ? nil : LyricsText(synced: false, lines: plain, language: language)
    }

    /// `mm:ss`, `mm:ss.xx` or `mm:ss.xxx` in milliseconds.
    static func time(_ text: Substring) -> Int? {
        let parts = text.split(separator: ":", maxSplits: 1)
        guard parts.count == 2, let minutes = Int(parts[0]), minutes >= 0, minutes < 10_000 else { return nil }
        let secondParts = parts[1].split(separator: ".", maxSplits: 1)
        guard let seconds = Int(secondParts[0]), (0..<60).contains(seconds), secondParts[0].count == 2 else { return nil }
        var fraction = 0
        if secondParts.count == 2 {
            let digits = secondParts[1]
            guard !digits.isEmpty, digits.count <= 3, let value = Int(digits) else { return nil }
            fraction = digits.count == 1 ? value * 100 : digits.count == 2 ? value * 10 : value
        }
        return (minutes * 60 + seconds) * 1000 + fraction
    }

    /// The words alone, for `getLyrics`.
    public var plainText: String { lines.map(\.value).joined(separator: "\n") }
}
