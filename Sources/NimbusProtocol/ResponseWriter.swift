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

    fileprivate enum Suffix { case none, newline, separator }

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
        case .newline: return 1
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
