import Foundation

/// The small conversions feeds need: HTML to plain text, RFC 822 dates (and the variants real
/// feeds write), `itunes:duration` in its several shapes, addresses relative to the feed.
public enum FeedText {
    /// Plain text of an HTML fragment: tags dropped (a `<br>` or `</p>` becomes a line break),
    /// entities decoded, runs of spaces folded, at most 4,000 characters.
    public static func plain(_ html: String) -> String {
        var out = ""
        var index = html.startIndex
        while index < html.endIndex {
            let character = html[index]
            if character == "<", let close = html[index...].firstIndex(of: ">") {
                let tag = html[html.index(after: index)..<close].lowercased()
                if tag.hasPrefix("br") || tag.hasPrefix("/p") || tag.hasPrefix("/li") || tag.hasPrefix("/div") { out.append("\n") }
                index = html.index(after: close)
                continue
            }
            if character == "&", let semicolon = html[index...].prefix(12).firstIndex(of: ";"),
                let decoded = entity(String(html[html.index(after: index)..<semicolon]))
            {
                out.append(decoded)
                index = html.index(after: semicolon)
                continue
            }
            out.append(character)
            index = html.index(after: index)
        }
        let lines = out.split(separator: "\n", omittingEmptySubsequences: false).map { line in
            line.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\r" || $0 == "\u{A0}" }).joined(separator: " ")
        }
        var text = lines.filter { !$0.isEmpty }.joined(separator: "\n")
        text = String(text.unicodeScalars.filter { $0.value >= 0x20 || $0 == "\n" }.map(Character.init))
        return text.count > 4000 ? String(text.prefix(4000)) + "…" : text
    }

    /// A title or a name as the feed holds it: the XML parser already decoded its entities
    /// once, so `&lt;b&gt;` is the text `<b>` and stays so; never parsed as markup (a title
    /// like `Tom <Jerry>` would lose words). Only whitespace is folded and control characters
    /// dropped, at most 500 characters.
    public static func line(_ text: String) -> String {
        let folded = text.split(whereSeparator: { $0.isWhitespace || $0 == "\u{A0}" }).joined(separator: " ")
        let clean = String(folded.unicodeScalars.filter { $0.value >= 0x20 && $0.value != 0x7F }.map(Character.init))
        return clean.count > 500 ? String(clean.prefix(500)) + "…" : clean
    }

    private static func entity(_ name: String) -> Character? {
        switch name {
        case "amp": return "&"
        case "lt": return "<"
        case "gt": return ">"
        case "quot": return "\""
        case "apos", "#39": return "'"
        case "nbsp": return " "
        case "hellip": return "…"
        case "mdash": return "—"
        case "ndash": return "–"
        default:
            let hex = name.hasPrefix("#x") || name.hasPrefix("#X")
            guard name.hasPrefix("#"), let value = UInt32(name.dropFirst(hex ? 2 : 1), radix: hex ? 16 : 10),
                let scalar = Unicode.Scalar(value), value >= 0x20
            else { return nil }
            return Character(scalar)
        }
    }

    private static let dateFormats = [
        "EEE, dd MMM yyyy HH:mm:ss Z", "EEE, d MMM yyyy HH:mm:ss Z", "dd MMM yyyy HH:mm:ss Z", "EEE, dd MMM yyyy HH:mm Z",
        "EEE, dd MMM yyyy HH:mm:ss zzz", "EEE, d MMM yyyy HH:mm:ss zzz", "EEE, dd MMM yy HH:mm:ss Z", "EEE, dd MMM yyyy",
        "yyyy-MM-dd'T'HH:mm:ssXXXXX", "yyyy-MM-dd'T'HH:mm:ss.SSSXXXXX", "yyyy-MM-dd",
    ]

    /// A `pubDate` (RFC 822, with the liberties feeds take) or an Atom date (RFC 3339).
    public static func date(_ text: String) -> Date? { DateReader().date(text) }

    /// Reads the dates of one feed with one formatter (a feed has thousands of them, and a
    /// formatter is costly to make); one reader per thread.
    public final class DateReader {
        private let formatter = DateFormatter()

        public init() {
            formatter.locale = Locale(identifier: "en_US_POSIX")
            formatter.timeZone = TimeZone(identifier: "UTC")
        }

        public func date(_ text: String) -> Date? {
            let text = text.trimmingCharacters(in: .whitespacesAndNewlines)
            guard !text.isEmpty, text.count < 64 else { return nil }
            for format in dateFormats {
                formatter.dateFormat = format
                if let date = formatter.date(from: text) { return date }
            }
            return nil
        }
    }

    /// Seconds of an `itunes:duration`: `3600`, `61:05`, `1:01:05`, `1:01:05.5`.
    public static func duration(_ text: String) -> Double? {
        let parts = text.trimmingCharacters(in: .whitespacesAndNewlines).split(separator: ":", omittingEmptySubsequences: false)
        guard (1...3).contains(parts.count) else { return nil }
        var seconds = 0.0
        for part in parts {
            guard let value = Double(part), value >= 0, value.isFinite else { return nil }
            seconds = seconds * 60 + value
        }
        return seconds > 0 && seconds < 7 * 24 * 3600 ? seconds : nil
    }

    /// An enclosure or image address, absolute: relative ones resolve against the feed's;
    /// only http and https are accepted.
    public static func resolve(_ text: String, against base: URL) -> URL? {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty, let url = URL(string: trimmed, relativeTo: base)?.absoluteURL,
            let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https"
        else { return nil }
        return url
    }
}
