import Foundation
import NimbusModel

/// Parses the filter arguments of find/search/count/list/… into a SongFilter, with the
/// exact error messages of MPD 0.24's SongFilter.
public enum FilterParser {
    /// `arguments` are the filter part of a command: expressions in parentheses and/or
    /// legacy `TYPE VALUE` pairs, all ANDed. `foldCase` is true for search-like commands.
    public static func parse(_ arguments: ArraySlice<String>, foldCase: Bool) throws(ProtocolError) -> SongFilter {
        guard !arguments.isEmpty else { throw .argument("Incorrect number of filter arguments") }
        var filters: [SongFilter] = []
        var rest = arguments
        while let first = rest.first {
            if first.hasPrefix("(") {
                var scanner = ExpressionScanner(first, foldCase: foldCase)
                filters.append(try scanner.expression())
                guard scanner.atEnd else { throw .argument("Unparsed garbage after expression") }
                rest = rest.dropFirst()
                continue
            }
            guard rest.count >= 2 else { throw .argument("Incorrect number of filter arguments") }
            filters.append(try legacy(type: first, value: rest.dropFirst().first!, foldCase: foldCase))
            rest = rest.dropFirst(2)
        }
        return filters.count == 1 ? filters[0] : .and(filters)
    }

    /// Legacy pairs: `search` compares by substring, `find` exactly.
    static func legacy(type name: String, value: String, foldCase: Bool) throws(ProtocolError) -> SongFilter {
        let match = StringMatch(value, kind: foldCase ? .substring : .exact, foldCase: foldCase)
        switch name.lowercased() {
        case "any": return .tag(nil, match, negated: false)
        case "file", "filename": return .uri(match, negated: false)
        case "base":
            guard isValidBase(value) else { throw .argument("Bad URI") }
            return .base(value)
        case "modified-since": return .modifiedSince(try timestamp(value))
        case "added-since": return .addedSince(try timestamp(value))
        default:
            guard let tag = TagType(name: name) else { throw .argument("Unknown filter type") }
            return .tag(tag, match, negated: false)
        }
    }

    static func isValidBase(_ value: String) -> Bool {
        !value.isEmpty && !value.hasPrefix("/") && !value.hasSuffix("/")
            && !value.split(separator: "/", omittingEmptySubsequences: false).contains { $0 == ".." || $0 == "." || $0.isEmpty }
    }

    /// UNIX seconds or ISO 8601 (`2020-01-01`, `2020-01-01T00:00:00`, with `Z` or an offset).
    static func timestamp(_ text: String) throws(ProtocolError) -> Int64 {
        if !text.isEmpty, text.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }), let seconds = Int64(text) { return seconds }
        for format in ["yyyy-MM-dd'T'HH:mm:ssXXXXX", "yyyy-MM-dd'T'HH:mm:ss", "yyyy-MM-dd'T'HH:mm", "yyyy-MM-dd"] {
            let formatter = DateFormatter()
            formatter.locale = Locale(identifier: "en_US_POSIX")
            formatter.timeZone = TimeZone(identifier: "UTC")
            formatter.dateFormat = format
            if let date = formatter.date(from: text) { return Int64(date.timeIntervalSince1970) }
        }
        throw .argument("Failed to parse date")
    }
}

/// Character-level parsing of one parenthesised expression.
private struct ExpressionScanner {
    private let text: [UInt8]
    private var index = 0
    private let foldCase: Bool

    init(_ expression: String, foldCase: Bool) {
        text = Array(expression.utf8)
        self.foldCase = foldCase
    }

    var atEnd: Bool { index >= text.count }
    private var current: UInt8? { index < text.count ? text[index] : nil }

    mutating func expression() throws(ProtocolError) -> SongFilter {
        guard current == UInt8(ascii: "(") else { throw .argument("'(' expected") }
        advance(by: 1)
        if current == UInt8(ascii: "!") {
            advance(by: 1)
            guard current == UInt8(ascii: "(") else { throw .argument("'(' expected") }
            let inner = try expression()
            try closeParenthesis()
            return .not(inner)
        }
        if current == UInt8(ascii: "(") {
            let first = try expression()
            if current == UInt8(ascii: ")") {
                advance(by: 1)
                return first
            }
            var items = [first]
            while true {
                guard try word() == "AND" else { throw .argument("'AND' expected") }
                items.append(try expression())
                if current == UInt8(ascii: ")") {
                    advance(by: 1)
                    return .and(items)
                }
            }
        }
        let type = try word()
        switch type.lowercased() {
        case "base":
            // MPD 0.24 checks an expression's base only when it looks the directory up: ``
            // is the whole library, a path that leads nowhere is "No such directory".
            let value = try quoted()
            try closeParenthesis()
            return .base(value)
        case "modified-since", "added-since":
            let value = try quoted()
            try closeParenthesis()
            let time = try FilterParser.timestamp(value)
            return type.lowercased() == "added-since" ? .addedSince(time) : .modifiedSince(time)
        case "prio":
            return try priority()
        case "audioformat":
            let mask: Bool
            if startsWith("==") {
                mask = false
            } else if startsWith("=~") {
                mask = true
            } else {
                throw .argument("'==' or '=~' expected")
            }
            advance(by: 2)
            let value = try quoted()
            try closeParenthesis()
            return .audioFormat(try Self.audioFormat(value, mask: mask))
        default:
            let target: TagType?
            if type.lowercased() == "any" || type.lowercased() == "file" {
                target = nil
            } else if let tag = TagType(name: type) {
                target = tag
            } else {
                throw .argument("Unknown filter type: \(type)")
            }
            let (kind, negated, fold) = try comparison()
            let value = try quoted()
            try closeParenthesis()
            let match = StringMatch(value, kind: kind, foldCase: fold)
            if type.lowercased() == "file" { return .uri(match, negated: negated) }
            return .tag(target, match, negated: negated)
        }
    }

    /// MPD 0.24's operators: the word operators need a space after them and compare case as
    /// their `_cs`/`_ci` suffix says, or as the command does without one (`eq` has no
    /// suffix-less form: that is `==`).
    private mutating func comparison() throws(ProtocolError) -> (StringMatch.Kind, Bool, Bool) {
        for (word, kind) in Self.wordOperators {
            for negated in [false, true] {
                let name = negated ? "!" + word : word
                if kind != .exact, startsWith(name + " ", ignoringCase: true) {
                    advance(by: name.utf8.count)
                    return (kind, negated, foldCase)
                }
                for (suffix, fold) in [("_cs", false), ("_ci", true)] where startsWith(name + suffix + " ", ignoringCase: true) {
                    advance(by: name.utf8.count + 3)
                    return (kind, negated, fold)
                }
            }
        }
        let symbols: [(String, StringMatch.Kind, Bool)] = [
            ("==", .exact, false), ("!=", .exact, true), ("=~", .regex, false), ("!~", .regex, true),
        ]
        for (symbol, kind, negated) in symbols where startsWith(symbol) {
            advance(by: 2)
            return (kind, negated, foldCase)
        }
        throw .argument("Unknown filter operator: \(String(decoding: text[index...], as: UTF8.self))")
    }

    private static let wordOperators: [(String, StringMatch.Kind)] = [
        ("contains", .substring), ("starts_with", .prefix), ("eq", .exact),
    ]

    /// `(prio >= N)`: only `>=` exists, and the number must touch the closing parenthesis.
    /// MPD reads the number with `strtoul`: spaces, an optional sign, digits. A minus sign
    /// wraps the value around, so `-1` is "Invalid priority value", not "Number expected".
    private mutating func priority() throws(ProtocolError) -> SongFilter {
        guard startsWith(">=") else { throw .argument("'>=' expected") }
        advance(by: 2)
        while let byte = current, byte == 0x20 || (0x09...0x0D).contains(byte) { index += 1 }
        let signed = index
        var negative = false
        if let sign = current, sign == UInt8(ascii: "+") || sign == UInt8(ascii: "-") {
            negative = sign == UInt8(ascii: "-")
            index += 1
        }
        let start = index
        var magnitude = 0
        while let byte = current, byte >= 0x30 && byte <= 0x39 {
            magnitude = min(magnitude * 10 + Int(byte - 0x30), 1 << 20)
            index += 1
        }
        guard index > start else {
            index = signed
            throw .argument("Number expected")
        }
        guard magnitude <= 0xFF, !negative || magnitude == 0 else { throw .argument("Invalid priority value") }
        guard current == UInt8(ascii: ")") else { throw .argument("')' expected") }
        advance(by: 1)
        return .priority(atLeast: UInt8(magnitude))
    }

    /// Letters and `-_` (filter types such as `modified-since`, and `AND`); MPD 0.24 stops a
    /// word at a digit.
    private mutating func word() throws(ProtocolError) -> String {
        let start = index
        while let byte = current, isWordByte(byte) { index += 1 }
        guard index > start else { throw .argument("Word expected") }
        let result = String(decoding: text[start..<index], as: UTF8.self)
        skipSpaces()
        return result
    }

    private mutating func quoted() throws(ProtocolError) -> String {
        guard let quote = current, quote == UInt8(ascii: "'") || quote == UInt8(ascii: "\"") else {
            throw .argument("Quoted string expected")
        }
        index += 1
        var value: [UInt8] = []
        while true {
            guard var byte = current else { throw .argument("Closing quote not found") }
            index += 1
            if byte == quote { break }
            if byte == UInt8(ascii: "\\") {
                guard let escaped = current else { throw .argument("Closing quote not found") }
                byte = escaped
                index += 1
            }
            value.append(byte)
        }
        skipSpaces()
        return String(decoding: value, as: UTF8.self)
    }

    private mutating func closeParenthesis() throws(ProtocolError) {
        guard current == UInt8(ascii: ")") else { throw .argument("')' expected") }
        advance(by: 1)
    }

    private mutating func advance(by count: Int) {
        index += count
        skipSpaces()
    }

    private mutating func skipSpaces() {
        while let byte = current, isSpace(byte) { index += 1 }
    }

    private func startsWith(_ prefix: String, ignoringCase: Bool = false) -> Bool {
        let bytes = Array(prefix.utf8)
        guard index + bytes.count <= text.count else { return false }
        let lower = { (byte: UInt8) in byte >= 0x41 && byte <= 0x5A ? byte | 0x20 : byte }
        return ignoringCase
            ? text[index..<(index + bytes.count)].map(lower).elementsEqual(bytes.map(lower))
            : text[index..<(index + bytes.count)].elementsEqual(bytes)
    }

    private func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 }

    private func isWordByte(_ byte: UInt8) -> Bool {
        (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A) || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_")
    }

    static func audioFormat(_ text: String, mask: Bool) throws(ProtocolError) -> AudioFormatPattern {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        func field<T>(_ index: Int, _ name: String, _ parse: (Substring) -> T?) throws(ProtocolError) -> T? {
            guard index < parts.count else { throw .argument("Failed to parse the \(name)") }
            if mask && parts[index] == "*" { return nil }
            guard let value = parse(parts[index]) else { throw .argument("Failed to parse the \(name)") }
            return value
        }
        let rate = try field(0, "sample rate") { UInt32($0).flatMap { $0 > 0 ? $0 : nil } }
        let sample = try field(1, "sample format") { part -> SampleFormat? in
            switch part {
            case "8": return .s8
            case "16": return .s16
            case "24": return .s24
            case "32": return .s32
            case "f": return .float
            case "dsd": return .dsd
            default: return nil
            }
        }
        let channels = try field(2, "channel count") { UInt8($0).flatMap { $0 > 0 ? $0 : nil } }
        guard parts.count == 3 else { throw .argument("Failed to parse the channel count") }
        return AudioFormatPattern(sampleRate: rate, sample: sample, channels: channels)
    }
}
