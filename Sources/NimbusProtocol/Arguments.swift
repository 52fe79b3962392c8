import Glibc
import NimbusModel

/// Typed parsing of protocol arguments with MPD's exact messages.
///
/// MPD parses numbers with C's strtol/strtoul/strtof, so leading blanks, a `+` sign and, for
/// unsigned values, a wrapped `-1` behave as they do there; calling the same C functions is the
/// simplest way to be indistinguishable.
public enum Arguments {
    public static func unsigned(_ text: String, max: UInt = UInt(UInt32.max)) throws(ProtocolError) -> UInt {
        let (value, complete) = text.withCString { pointer -> (UInt, Bool) in
            var end: UnsafeMutablePointer<CChar>?
            let value = strtoul(pointer, &end, 10)
            return (value, end != UnsafeMutablePointer(mutating: pointer) && end?.pointee == 0)
        }
        guard complete else { throw .argument("Integer expected: \(text)") }
        guard value <= max else { throw .argument("Number too large: \(text)") }
        return value
    }

    public static func integer(_ text: String, min: Int = Int(Int32.min), max: Int = Int(Int32.max))
        throws(ProtocolError) -> Int
    {
        let (value, complete) = signedValue(text)
        guard complete else { throw .argument("Integer expected: \(text)") }
        guard value >= min && value <= max else { throw .argument("Number too large: \(text)") }
        return value
    }

    public static func bool(_ text: String) throws(ProtocolError) -> Bool {
        let (value, complete) = text.withCString { pointer -> (UInt, Bool) in
            var end: UnsafeMutablePointer<CChar>?
            let value = strtoul(pointer, &end, 10)
            return (value, end != UnsafeMutablePointer(mutating: pointer) && end?.pointee == 0)
        }
        guard complete, value <= 1 else { throw .argument("Boolean (0/1) expected: \(text)") }
        return value == 1
    }

    public static func float(_ text: String) throws(ProtocolError) -> Double {
        let (value, complete) = text.withCString { pointer -> (Float, Bool) in
            var end: UnsafeMutablePointer<CChar>?
            let value = strtof(pointer, &end)
            return (value, end != UnsafeMutablePointer(mutating: pointer) && end?.pointee == 0)
        }
        guard complete else { throw .argument("Float expected: \(text)") }
        return Double(value)
    }

    /// A non-negative time in seconds (seek targets, crossfade).
    public static func songTime(_ text: String) throws(ProtocolError) -> Double {
        let value = try float(text)
        guard !value.isNaN else { throw .argument("Float expected: \(text)") }
        guard value >= 0 else { throw .argument("Negative value not allowed: \(text)") }
        return value
    }

    /// A seek target in milliseconds. MPD takes any float here; beyond what a song time can
    /// hold it saturates (and then fails to seek), and NaN is refused rather than guessed.
    public static func songTimeMilliseconds(_ text: String) throws(ProtocolError) -> Int {
        let value = try songTime(text)
        guard !value.isNaN else { throw .argument("Float expected: \(text)") }
        return SongTime.milliseconds(fromSeconds: value)
    }

    /// A signed time in milliseconds (`seekcur +5`, `-5`), saturating like `songTimeMilliseconds`.
    public static func signedSongTimeMilliseconds(_ text: String) throws(ProtocolError) -> Int {
        let value = try float(text)
        guard !value.isNaN else { throw .argument("Float expected: \(text)") }
        return SongTime.milliseconds(fromSeconds: value)
    }

    /// `START:END`, `START:`, `N` or the legacy `-1` meaning everything.
    public static func range(_ text: String) throws(ProtocolError) -> ProtocolRange {
        let bytes = Array(text.utf8)
        let (start, startEnd) = prefixValue(bytes[...])
        guard startEnd > 0, startEnd == bytes.count || bytes[startEnd] == UInt8(ascii: ":") else {
            throw .argument("Integer or range expected: \(text)")
        }
        if startEnd == bytes.count && start == -1 { return .all }
        guard start >= 0 else { throw .argument("Number is negative: \(text)") }
        guard start <= Int(Int32.max) else { throw .argument("Number too large: \(text)") }
        guard startEnd < bytes.count else { return ProtocolRange(start: start, end: start + 1) }
        let tail = bytes[(startEnd + 1)...]
        if tail.isEmpty { return ProtocolRange(start: start, end: nil) }
        let (end, endLength) = prefixValue(tail)
        guard endLength > 0, endLength == tail.count else { throw .argument("Integer or range expected: \(text)") }
        guard end >= 0 else { throw .argument("Number is negative: \(text)") }
        guard end <= Int(Int32.max) else { throw .argument("Number too large: \(text)") }
        guard start <= end else { throw .argument("Malformed range: \(text)") }
        return ProtocolRange(start: start, end: end)
    }

    /// strtol over `bytes`: the value and how many bytes it consumed (0 when none parsed).
    private static func prefixValue(_ bytes: ArraySlice<UInt8>) -> (Int, Int) {
        var cString = Array(bytes.map { CChar(bitPattern: $0) })
        cString.append(0)
        return cString.withUnsafeBufferPointer { buffer -> (Int, Int) in
            var end: UnsafeMutablePointer<CChar>?
            let value = strtol(buffer.baseAddress!, &end, 10)
            return (value, end.map { UnsafePointer($0) - buffer.baseAddress! } ?? 0)
        }
    }

    private static func signedValue(_ text: String) -> (Int, Bool) {
        let bytes = Array(text.utf8)
        let (value, consumed) = prefixValue(bytes[...])
        return (value, consumed > 0 && consumed == bytes.count)
    }
}

/// A half-open range of positions; `end == nil` means open-ended.
public struct ProtocolRange: Equatable, Sendable {
    public var start: Int
    public var end: Int?

    public init(start: Int, end: Int?) {
        self.start = start
        self.end = end
    }

    public static let all = ProtocolRange(start: 0, end: nil)

    /// Clamps the open end to `count`.
    public func resolved(count: Int) -> Range<Int> {
        let upper = Swift.min(end ?? count, count)
        return Swift.min(start, upper)..<upper
    }
}
