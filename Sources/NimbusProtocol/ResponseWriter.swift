/// Accumulates response bytes so that each response (or each batch of pipelined responses)
/// leaves in a single write. MPD 0.23 flushes large responses in several writes and stalls on
/// Nagle's algorithm; one write per batch avoids that.
public struct ResponseWriter: Sendable {
    public private(set) var bytes: [UInt8] = []

    public init() {}

    public var count: Int { bytes.count }
    public var isEmpty: Bool { bytes.isEmpty }

    public mutating func line(_ text: String) {
        bytes.append(contentsOf: text.utf8)
        bytes.append(0x0A)
    }

    public mutating func field(_ key: String, _ value: String) {
        bytes.append(contentsOf: key.utf8)
        bytes.append(contentsOf: ": ".utf8)
        bytes.append(contentsOf: value.utf8)
        bytes.append(0x0A)
    }

    public mutating func field<I: BinaryInteger>(_ key: String, _ value: I) {
        field(key, String(value))
    }

    /// `binary: N`, the raw bytes and a newline, as albumart/readpicture send them.
    public mutating func binary<C: Collection>(_ data: C) where C.Element == UInt8 {
        field("binary", data.count)
        bytes.append(contentsOf: data)
        bytes.append(0x0A)
    }

    public mutating func ok() { line("OK") }
    public mutating func listOK() { line("list_OK") }

    public mutating func ack(_ error: ProtocolError, index: Int, command: String) {
        line("ACK [\(error.code.rawValue)@\(index)] {\(command)} \(error.message)")
    }

    public mutating func append(_ other: ResponseWriter) { bytes.append(contentsOf: other.bytes) }

    /// Hands the accumulated bytes to the caller and starts empty again.
    public mutating func take() -> [UInt8] {
        defer { bytes = [] }
        return bytes
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
