/// The records of an mDNS response, read as hostile input: every read bounds-checked, names
/// through `readName` (pointers only backwards), unknown types skipped, at most 256 records.
public enum DNSResponse {
    /// The answer and additional records of a response (nil: not a response, or malformed).
    public static func records(_ bytes: [UInt8]) -> [DNSRecord]? {
        guard bytes.count >= 12, bytes.count <= 9000 else { return nil }
        let flags = UInt16(bytes[2]) << 8 | UInt16(bytes[3])
        guard flags & 0x8000 != 0 else { return nil }
        func count(_ at: Int) -> Int { Int(UInt16(bytes[at]) << 8 | UInt16(bytes[at + 1])) }
        let questions = count(4), total = count(6) + count(8) + count(10)
        guard total <= 256 else { return nil }
        var offset = 12
        for _ in 0..<questions {
            guard let (_, next) = DNSMessage.readName(bytes, at: offset), next + 4 <= bytes.count else { return nil }
            offset = next + 4
        }
        var records: [DNSRecord] = []
        for _ in 0..<total {
            guard let (name, next) = DNSMessage.readName(bytes, at: offset, lowercased: false), next + 10 <= bytes.count else { return nil }
            let type = UInt16(bytes[next]) << 8 | UInt16(bytes[next + 1])
            let ttl = UInt32(bytes[next + 4]) << 24 | UInt32(bytes[next + 5]) << 16 | UInt32(bytes[next + 6]) << 8 | UInt32(bytes[next + 7])
            let length = count(next + 8)
            let start = next + 10
            guard start + length <= bytes.count else { return nil }
            offset = start + length
            let data: DNSRecordData
            switch DNSType(rawValue: type) {
            case .ptr:
                guard let (target, _) = DNSMessage.readName(bytes, at: start, lowercased: false) else { continue }
                data = .ptr(target)
            case .srv:
                guard length >= 7, let (target, _) = DNSMessage.readName(bytes, at: start + 6, lowercased: false) else { continue }
                data = .srv(port: UInt16(bytes[start + 4]) << 8 | UInt16(bytes[start + 5]), target: target)
            case .txt:
                var entries: [String] = []
                var at = start
                while at < start + length {
                    let size = Int(bytes[at])
                    guard at + 1 + size <= start + length else { break }
                    entries.append(String(decoding: bytes[(at + 1)..<(at + 1 + size)], as: UTF8.self))
                    at += 1 + size
                }
                data = .txt(entries)
            case .a:
                guard length == 4 else { continue }
                data = .a(Array(bytes[start..<(start + 4)]))
            default:
                continue
            }
            records.append(DNSRecord(name: name, ttl: ttl, unique: false, data: data))
        }
        return records
    }

    /// A query for the PTR records of `names`, as a one-shot ("legacy unicast") querier sends
    /// it from its own port: responders answer straight to that port.
    public static func query(_ names: [String], id: UInt16) -> [UInt8] {
        var out: [UInt8] = [UInt8(id >> 8), UInt8(id & 0xFF), 0, 0, 0, UInt8(names.count), 0, 0, 0, 0, 0, 0]
        for name in names {
            DNSMessage.appendName(&out, name)
            out += [0, UInt8(DNSType.ptr.rawValue), 0, 1]
        }
        return out
    }
}
