/// Accumulates response bytes so that each response (or each batch of pipelined responses)
/// leaves in a single write. MPD 0.23 flushes large responses in several writes and stalls on
/// Nagle's algorithm; one write per batch avoids that.
public struct ResponseWriter: Sendable {
    /// Bytes `0..<count` are the response; the rest is spare capacity, so a field is written
    /// with one bounds check and one copy per part (profiling showed per-append overhead of
    /// Array dominating `status`).
    private var storage: [UInt8] = []
    public private(set) var count = 0

    public init() {}

    public var isEmpty: Bool { count == 0 }
    public var bytes: ArraySlice<UInt8> { storage[..<count] }

    public mutating func line(_ text: StaticString) {
        write(text.rawBuffer, .newline)
    }

    public mutating func line(_ text: String) {
        var text = text
        text.withUTF8 { write(UnsafeRawBufferPointer($0), .newline) }
    }

    /// `key: value` with both parts literal (`state: stop`).
    public mutating func field(_ key: StaticString, literal value: StaticString) {
        write(key.rawBuffer, .separator, value.rawBuffer, .newline)
    }

    public mutating func field(_ key: StaticString, _ value: String) {
        var value = value
        value.withUTF8 { write(key.rawBuffer, .separator, UnsafeRawBufferPointer($0), .newline) }
    }

    /// A key known only at run time (tag names, sticker names).
    public mutating func field(named key: String, _ value: String) {
        var key = key
        var value = value
        key.withUTF8 { key in
            value.withUTF8 { value in
                write(UnsafeRawBufferPointer(key), .separator, UnsafeRawBufferPointer(value), .newline)
            }
        }
    }

    public mutating func field(_ key: StaticString, _ value: Int) {
        var digits = DecimalDigits(value)
        withUnsafeBytes(of: &digits.buffer) { raw in
            write(key.rawBuffer, .separator, UnsafeRawBufferPointer(rebasing: raw[digits.start...]), .newline)
        }
    }

    public mutating func field(_ key: StaticString, _ value: UInt64) {
        field(key, Int(clamping: value))
    }

    /// `key: 44100:16:2` and the like: a number, a literal, a number.
    mutating func field(_ key: StaticString, _ first: Int, _ middle: StaticString, _ last: Int) {
        var left = DecimalDigits(first)
        var right = DecimalDigits(last)
        withUnsafeBytes(of: &left.buffer) { leftDigits in
            withUnsafeBytes(of: &right.buffer) { rightDigits in
                write(key.rawBuffer, .separator, UnsafeRawBufferPointer(rebasing: leftDigits[left.start...]), .none)
                write(middle.rawBuffer, .none, UnsafeRawBufferPointer(rebasing: rightDigits[right.start...]), .newline)
            }
        }
    }

    /// `key: directory/name` without joining the two into a new string first (`file:` lines of
    /// `listallinfo`, thousands of them).
    public mutating func field(_ key: StaticString, directory: String, name: String) {
        var name = name
        name.withUTF8 { field(key, directory: directory, name: $0) }
    }

    /// The same with the name as UTF-8 bytes (a library song keeps its name so).
    public mutating func field(_ key: StaticString, directory: String, name: UnsafeBufferPointer<UInt8>) {
        guard !directory.isEmpty else { return write(key.rawBuffer, .separator, UnsafeRawBufferPointer(name), .newline) }
        var directory = directory
        directory.withUTF8 { first in
            write(key.rawBuffer, .separator, UnsafeRawBufferPointer(first), .slash)
            write(UnsafeRawBufferPointer(name), .newline)
        }
    }

    /// `key: 2026-11-30T11:29:30Z` (MPD's Last-Modified and Added), written in place: the
    /// date arithmetic is Hinnant's days-to-civil, so neither libc's gmtime nor a String is
    /// involved for the two timestamps of every song in a listing.
    public mutating func field(_ key: StaticString, iso8601 seconds: Int64) {
        let days = seconds >= 0 ? seconds / 86400 : (seconds - 86399) / 86400
        let clock = seconds - days * 86400
        let shifted = days + 719_468
        let era = (shifted >= 0 ? shifted : shifted - 146_096) / 146_097
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
        let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        guard (0...9999).contains(year) else { return field(key, TimeFormat.iso8601(seconds)) }
        var text: (UInt64, UInt64, UInt64) = (0, 0, 0)
        withUnsafeMutableBytes(of: &text) { raw in
            func put(_ value: Int64, at offset: Int, width: Int) {
                var rest = value
                for index in stride(from: offset + width - 1, through: offset, by: -1) {
                    raw[index] = UInt8(rest % 10) + 0x30
                    rest /= 10
                }
            }
            put(year, at: 0, width: 4)
            raw[4] = UInt8(ascii: "-")
            put(month, at: 5, width: 2)
            raw[7] = UInt8(ascii: "-")
            put(day, at: 8, width: 2)
            raw[10] = UInt8(ascii: "T")
            put(clock / 3600, at: 11, width: 2)
            raw[13] = UInt8(ascii: ":")
            put(clock / 60 % 60, at: 14, width: 2)
            raw[16] = UInt8(ascii: ":")
            put(clock % 60, at: 17, width: 2)
            raw[19] = UInt8(ascii: "Z")
            write(key.rawBuffer, .separator, UnsafeRawBufferPointer(rebasing: raw[0..<20]), .newline)
        }
    }

    /// `key: 215.043`: milliseconds as seconds with three decimals (MPD's `duration`).
    public mutating func field(_ key: StaticString, thousandths value: Int) {
        var whole = DecimalDigits(value.magnitude / 1000 == 0 && value < 0 ? 0 : value / 1000)
        let fraction = Int(value.magnitude % 1000)
        var tail: (UInt32) = 0
        withUnsafeMutableBytes(of: &tail) { raw in
            raw[0] = UInt8(ascii: ".")
            raw[1] = UInt8(fraction / 100) + 0x30
            raw[2] = UInt8(fraction / 10 % 10) + 0x30
            raw[3] = UInt8(fraction % 10) + 0x30
        }
        let sign: StaticString = value < 0 && value / 1000 == 0 ? "-" : ""
        withUnsafeBytes(of: &whole.buffer) { digits in
            withUnsafeBytes(of: &tail) { decimals in
                write(key.rawBuffer, .separator, sign.rawBuffer, .none)
                write(UnsafeRawBufferPointer(rebasing: digits[whole.start...]), .none, decimals, .newline)
            }
        }
    }

    /// `binary: N`, the raw bytes and a newline, as albumart/readpicture send them.
    public mutating func binary(_ data: ArraySlice<UInt8>) {
        field("binary", data.count)
        data.withUnsafeBytes { write($0, .newline) }
    }

    public mutating func ok() { line("OK") }
    public mutating func listOK() { line("list_OK") }

    public mutating func ack(_ error: ProtocolError, index: Int, command: String) {
        line("ACK [\(error.code.rawValue)@\(index)] {\(command)} \(error.message)")
    }

    public mutating func append(_ other: ResponseWriter) {
        other.storage.withUnsafeBytes { write(UnsafeRawBufferPointer(rebasing: $0[..<other.count]), .none) }
    }

    /// Hands the accumulated bytes to the caller and starts empty again.
    public mutating func take() -> [UInt8] {
        storage.removeLast(storage.count - count)
        defer {
            storage = []
            count = 0
        }
        return storage
    }

    fileprivate enum Suffix { case none, newline, separator, slash }

    private mutating func write(
        _ first: UnsafeRawBufferPointer, _ firstSuffix: Suffix, _ second: UnsafeRawBufferPointer? = nil,
        _ secondSuffix: Suffix = .none
    ) {
        let total = first.count + firstSuffix.length + (second?.count ?? 0) + secondSuffix.length
        if count + total > storage.count {
            storage.append(contentsOf: repeatElement(0, count: max(total, storage.count, 256)))
        }
        let start = count
        storage.withUnsafeMutableBytes { target in
            var position = target.baseAddress! + start
            position = Self.copy(first, to: position)
            position = firstSuffix.write(to: position)
            if let second { position = Self.copy(second, to: position) }
            _ = secondSuffix.write(to: position)
        }
        count += total
    }

    private static func copy(_ source: UnsafeRawBufferPointer, to position: UnsafeMutableRawPointer) -> UnsafeMutableRawPointer {
        if let base = source.baseAddress, source.count > 0 { position.copyMemory(from: base, byteCount: source.count) }
        return position + source.count
    }
}

extension ResponseWriter.Suffix {
    fileprivate var length: Int {
        switch self {
        case .none: return 0
        case .newline, .slash: return 1
        case .separator: return 2
        }
    }

    fileprivate func write(to position: UnsafeMutableRawPointer) -> UnsafeMutableRawPointer {
        switch self {
        case .none:
            return position
        case .newline:
            position.storeBytes(of: 0x0A, as: UInt8.self)
            return position + 1
        case .slash:
            position.storeBytes(of: UInt8(ascii: "/"), as: UInt8.self)
            return position + 1
        case .separator:
            position.storeBytes(of: UInt8(ascii: ":"), as: UInt8.self)
            position.storeBytes(of: UInt8(ascii: " "), toByteOffset: 1, as: UInt8.self)
            return position + 2
        }
    }
}

extension StaticString {
    fileprivate var rawBuffer: UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(start: utf8Start, count: utf8CodeUnitCount)
    }
}

/// Decimal digits of an integer, right-aligned in a fixed buffer: no String, no allocation.
private struct DecimalDigits {
    var buffer: (UInt64, UInt64, UInt64) = (0, 0, 0)
    var start = 24

    init(_ value: Int) {
        var magnitude = value.magnitude
        withUnsafeMutableBytes(of: &buffer) { raw in
            repeat {
                start -= 1
                raw[start] = UInt8(truncatingIfNeeded: magnitude % 10) + 0x30
                magnitude /= 10
            } while magnitude > 0
            if value < 0 {
                start -= 1
                raw[start] = UInt8(ascii: "-")
            }
        }
    }
}

/// Formats numbers as MPD does: times with exactly three decimals, other floats in their
/// shortest form (fmt's `{}`: `0`, `-17`, `-15.5`).
public enum NumberFormat {
    public static func seconds(_ value: Double) -> String {
        let thousandths = Int64((value * 1000).rounded())
        let magnitude = thousandths.magnitude
        let fraction = String(magnitude % 1000)
        return (thousandths < 0 ? "-" : "") + String(magnitude / 1000) + "."
            + String(repeating: "0", count: 3 - fraction.count) + fraction
    }

    public static func minimal(_ value: Float) -> String {
        if value == value.rounded(), abs(value) < 1e9 { return String(Int(value)) }
        return value.description
    }
}
