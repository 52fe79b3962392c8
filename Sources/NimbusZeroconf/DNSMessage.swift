/// The parts of DNS messages (RFC 1035) that multicast DNS service announcement needs: reading
/// the questions of a query, writing a response of PTR, SRV, TXT and A records.
public enum DNSType: UInt16, Sendable {
    case a = 1
    case ptr = 12
    case txt = 16
    case aaaa = 28
    case srv = 33
    case any = 255
}

public struct DNSQuestion: Equatable, Sendable {
    /// Lower-cased, dot-separated, without the final dot.
    public var name: String
    public var type: UInt16
    /// The mDNS "QU" bit: the asker would like a unicast answer.
    public var unicastResponse: Bool

    public init(name: String, type: UInt16, unicastResponse: Bool) {
        self.name = name
        self.type = type
        self.unicastResponse = unicastResponse
    }
}

public struct DNSQuery: Equatable, Sendable {
    public var id: UInt16
    public var questions: [DNSQuestion]
}

public enum DNSRecordData: Equatable, Sendable {
    case ptr(String)
    case srv(port: UInt16, target: String)
    /// Each string one length-prefixed entry; none at all is written as one empty entry.
    case txt([String])
    case a([UInt8])
}

public struct DNSRecord: Equatable, Sendable {
    public var name: String
    public var ttl: UInt32
    /// mDNS cache-flush bit: this host is the only owner of the name and type.
    public var unique: Bool
    public var data: DNSRecordData

    public init(name: String, ttl: UInt32, unique: Bool, data: DNSRecordData) {
        self.name = name
        self.ttl = ttl
        self.unique = unique
        self.data = data
    }

    var type: DNSType {
        switch data {
        case .ptr: return .ptr
        case .srv: return .srv
        case .txt: return .txt
        case .a: return .a
        }
    }
}

public enum DNSMessage {
    /// The questions of a query; nil for responses and for anything malformed (a datagram
    /// from the network is never trusted: every read is bounds-checked, pointers may only
    /// point backwards).
    public static func parseQuery(_ bytes: [UInt8]) -> DNSQuery? {
        guard bytes.count >= 12 else { return nil }
        let flags = UInt16(bytes[2]) << 8 | UInt16(bytes[3])
        guard flags & 0x8000 == 0 else { return nil }
        let count = Int(UInt16(bytes[4]) << 8 | UInt16(bytes[5]))
        var offset = 12
        var questions: [DNSQuestion] = []
        for _ in 0..<count {
            guard let (name, next) = readName(bytes, at: offset), next + 4 <= bytes.count else { return nil }
            let type = UInt16(bytes[next]) << 8 | UInt16(bytes[next + 1])
            let qclass = UInt16(bytes[next + 2]) << 8 | UInt16(bytes[next + 3])
            questions.append(DNSQuestion(name: name, type: type, unicastResponse: qclass & 0x8000 != 0))
            offset = next + 4
        }
        return DNSQuery(id: UInt16(bytes[0]) << 8 | UInt16(bytes[1]), questions: questions)
    }

    /// A name at `offset` and the offset after it (after the first pointer, if any).
    static func readName(_ bytes: [UInt8], at start: Int, lowercased: Bool = true) -> (String, Int)? {
        var labels: [String] = []
        var offset = start
        var end: Int?
        var jumps = 0
        while true {
            guard offset < bytes.count else { return nil }
            let length = Int(bytes[offset])
            if length == 0 {
                let name = labels.joined(separator: ".")
                return (lowercased ? name.lowercased() : name, end ?? offset + 1)
            }
            if length & 0xC0 == 0xC0 {
                guard offset + 1 < bytes.count else { return nil }
                let target = (length & 0x3F) << 8 | Int(bytes[offset + 1])
                guard target < offset, jumps < 32 else { return nil }
                if end == nil { end = offset + 2 }
                offset = target
                jumps += 1
                continue
            }
            guard length < 64, offset + 1 + length <= bytes.count else { return nil }
            labels.append(String(decoding: bytes[(offset + 1)...(offset + length)], as: UTF8.self))
            offset += 1 + length
        }
    }

    /// A response: authoritative, id 0 for multicast (or the query's id for a legacy unicast
    /// one, whose questions it then repeats).
    public static func response(id: UInt16 = 0, questions: [DNSQuestion] = [], answers: [DNSRecord], additional: [DNSRecord] = [])
        -> [UInt8]
    {
        var out: [UInt8] = []
        append16(&out, id)
        append16(&out, 0x8400)
        append16(&out, UInt16(questions.count))
        append16(&out, UInt16(answers.count))
        append16(&out, 0)
        append16(&out, UInt16(additional.count))
        for question in questions {
            appendName(&out, question.name)
            append16(&out, question.type)
            append16(&out, 1)
        }
        for record in answers + additional { append(&out, record) }
        return out
    }

    private static func append(_ out: inout [UInt8], _ record: DNSRecord) {
        appendName(&out, record.name)
        append16(&out, record.type.rawValue)
        append16(&out, record.unique ? 0x8001 : 0x0001)
        append16(&out, UInt16(record.ttl >> 16))
        append16(&out, UInt16(record.ttl & 0xFFFF))
        var data: [UInt8] = []
        switch record.data {
        case .ptr(let name):
            appendName(&data, name)
        case .srv(let port, let target):
            append16(&data, 0)
            append16(&data, 0)
            append16(&data, port)
            appendName(&data, target)
        case .txt(let entries):
            for entry in entries.isEmpty ? [""] : entries {
                let bytes = Array(entry.utf8.prefix(255))
                data.append(UInt8(bytes.count))
                data += bytes
            }
        case .a(let address):
            data = address
        }
        append16(&out, UInt16(data.count))
        out += data
    }

    /// Labels of at most 63 bytes (longer ones are cut), no compression.
    static func appendName(_ out: inout [UInt8], _ name: String) {
        for label in name.split(separator: ".", omittingEmptySubsequences: true) {
            let bytes = Array(label.utf8.prefix(63))
            out.append(UInt8(bytes.count))
            out += bytes
        }
        out.append(0)
    }

    private static func append16(_ out: inout [UInt8], _ value: UInt16) {
        out.append(UInt8(value >> 8))
        out.append(UInt8(value & 0xFF))
    }
}
