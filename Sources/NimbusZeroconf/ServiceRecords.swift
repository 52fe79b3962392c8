/// The records that describe one MPD service (DNS-SD): which questions they answer.
public struct ServiceRecords: Sendable {
    public static let serviceType = "_mpd._tcp.local"
    static let browseAll = "_services._dns-sd._udp.local"

    /// The instance label (MPD's `zeroconf_name` with `%h` filled in). A dot would split it
    /// into two labels, so dots become dashes.
    public let instance: String
    public let host: String
    public let port: UInt16
    public let addresses: [[UInt8]]

    public init(instance: String, host: String, port: UInt16, addresses: [[UInt8]]) {
        self.instance = String(instance.replacingOccurrences(of: ".", with: "-").utf8.prefix(63)) ?? "Music Player"
        self.host = host.replacingOccurrences(of: ".", with: "-")
        self.port = port
        self.addresses = addresses
    }

    var instanceName: String { instance + "." + Self.serviceType }
    var hostName: String { host + ".local" }

    /// RFC 6762 §10: host records live two minutes, the rest 75 minutes. Nil: those defaults.
    func all(ttl: UInt32?) -> [DNSRecord] {
        pointer(ttl: ttl ?? 4500) + [service(ttl: ttl ?? 120), text(ttl: ttl ?? 4500)] + hostAddresses(ttl: ttl ?? 120)
    }

    private func pointer(ttl: UInt32) -> [DNSRecord] {
        [DNSRecord(name: Self.serviceType, ttl: ttl, unique: false, data: .ptr(instanceName))]
    }

    private func service(ttl: UInt32) -> DNSRecord {
        DNSRecord(name: instanceName, ttl: ttl, unique: true, data: .srv(port: port, target: hostName))
    }

    private func text(ttl: UInt32) -> DNSRecord {
        DNSRecord(name: instanceName, ttl: ttl, unique: true, data: .txt([]))
    }

    private func hostAddresses(ttl: UInt32) -> [DNSRecord] {
        addresses.map { DNSRecord(name: hostName, ttl: ttl, unique: true, data: .a($0)) }
    }

    /// Answers for the questions we own, and the additional records a browser needs next
    /// (RFC 6763 §12: SRV, TXT and addresses along with the PTR).
    public func answers(to questions: [DNSQuestion]) -> (answers: [DNSRecord], additional: [DNSRecord]) {
        var answers: [DNSRecord] = []
        let instanceKey = instanceName.lowercased(), hostKey = hostName.lowercased()
        for question in questions {
            let type = DNSType(rawValue: question.type)
            switch question.name {
            case Self.serviceType where type == .ptr || type == .any:
                answers += pointer(ttl: 4500)
            case Self.browseAll where type == .ptr || type == .any:
                answers.append(DNSRecord(name: Self.browseAll, ttl: 4500, unique: false, data: .ptr(Self.serviceType)))
            case instanceKey:
                if type == .srv || type == .any { answers.append(service(ttl: 120)) }
                if type == .txt || type == .any { answers.append(text(ttl: 4500)) }
            case hostKey where type == .a || type == .any:
                answers += hostAddresses(ttl: 120)
            default:
                break
            }
        }
        var additional: [DNSRecord] = []
        if answers.contains(where: { $0.name == Self.serviceType }) {
            additional = [service(ttl: 120), text(ttl: 4500)] + hostAddresses(ttl: 120)
        } else if answers.contains(where: { $0.type == .srv }) {
            additional = hostAddresses(ttl: 120)
        }
        additional.removeAll { record in answers.contains(record) }
        return (answers, additional)
    }
}
