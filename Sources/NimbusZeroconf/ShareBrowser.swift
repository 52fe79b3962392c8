import Glibc

/// A share another machine announces by multicast DNS, as `listneighbors` shows it.
public struct Neighbor: Sendable, Equatable {
    /// `smb://192.168.1.20/`, `sftp://nas.local:2222/`, `http://host:8080/dav/` …
    public let uri: String
    /// The name the machine gives it ("Living room NAS").
    public let name: String

    public init(uri: String, name: String) {
        self.uri = uri
        self.name = name
    }
}

/// Finds file shares on the LAN: one PTR query for the share services, sent to the mDNS group
/// from a port of its own (responders answer it directly), answers gathered for `duration`.
/// SMB2-only networks no longer answer the NetBIOS browsing MPD's smbclient neighbor plugin
/// relies on; Samba (with Avahi), macOS and NAS boxes announce `_smb._tcp` instead.
public enum ShareBrowser {
    public static let services: [(type: String, scheme: String, port: UInt16)] = [
        ("_smb._tcp.local", "smb", 445), ("_sftp-ssh._tcp.local", "sftp", 22), ("_webdav._tcp.local", "http", 80),
        ("_webdavs._tcp.local", "https", 443), ("_ftp._tcp.local", "ftp", 21),
    ]

    /// Blocks for `duration` seconds (a thread of the caller's, never the core loop).
    public static func browse(duration: Double = 1.5, port: UInt16 = 5353) -> [Neighbor] {
        let fd = socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
        guard fd >= 0 else { return [] }
        defer { close(fd) }
        var loop: UInt8 = 1
        setsockopt(fd, Int32(IPPROTO_IP), IP_MULTICAST_LOOP, &loop, socklen_t(MemoryLayout<UInt8>.size))
        var ttl: UInt8 = 255
        setsockopt(fd, Int32(IPPROTO_IP), IP_MULTICAST_TTL, &ttl, socklen_t(MemoryLayout<UInt8>.size))
        let query = DNSResponse.query(services.map(\.type), id: UInt16.random(in: 1...UInt16.max))
        var records: [DNSRecord] = []
        for var interface in ServiceAnnouncer.interfaceAddresses() {
            setsockopt(fd, Int32(IPPROTO_IP), IP_MULTICAST_IF, &interface, socklen_t(MemoryLayout<in_addr>.size))
            var destination = sockaddr_in()
            destination.sin_family = sa_family_t(AF_INET)
            destination.sin_port = port.bigEndian
            destination.sin_addr.s_addr = ServiceAnnouncer.group
            _ = query.withUnsafeBytes { raw in
                withUnsafePointer(to: &destination) {
                    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                        sendto(fd, raw.baseAddress, raw.count, 0, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                    }
                }
            }
        }
        var deadline = timespec()
        clock_gettime(CLOCK_MONOTONIC, &deadline)
        let end = Double(deadline.tv_sec) + Double(deadline.tv_nsec) / 1e9 + duration
        var buffer = [UInt8](repeating: 0, count: 9000)
        while records.count < 4096 {
            var now = timespec()
            clock_gettime(CLOCK_MONOTONIC, &now)
            let left = end - (Double(now.tv_sec) + Double(now.tv_nsec) / 1e9)
            guard left > 0 else { break }
            var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&poller, 1, Int32(left * 1000) + 1) > 0 else { continue }
            let count = recv(fd, &buffer, buffer.count, 0)
            guard count > 0, let found = DNSResponse.records(Array(buffer[0..<count])) else { continue }
            records += found
        }
        return neighbors(records)
    }

    /// The shares the records describe: each service instance with its SRV record, at its
    /// host's IPv4 address when an A record gave one (else its `.local` name).
    public static func neighbors(_ records: [DNSRecord]) -> [Neighbor] {
        var found: [Neighbor] = []
        for record in records {
            guard case .ptr(let instance) = record.data,
                let service = services.first(where: { $0.type == record.name.lowercased() })
            else { continue }
            guard let (port, target) = records.lazy.compactMap({ entry -> (UInt16, String)? in
                guard entry.name.lowercased() == instance.lowercased(), case .srv(let port, let target) = entry.data else { return nil }
                return (port, target)
            }).first else { continue }
            let address = records.lazy.compactMap { entry -> String? in
                guard entry.name.lowercased() == target.lowercased(), case .a(let bytes) = entry.data else { return nil }
                return bytes.map(String.init).joined(separator: ".")
            }.first
            var path = "/"
            for entry in records where entry.name.lowercased() == instance.lowercased() {
                if case .txt(let items) = entry.data, let value = items.first(where: { $0.hasPrefix("path=") })?.dropFirst(5), value.hasPrefix("/") {
                    path = String(value)
                }
            }
            let host = address ?? target
            let uri = "\(service.scheme)://\(host)\(port == service.port ? "" : ":\(port)")\(path.hasSuffix("/") ? path : path + "/")"
            let name = String(instance.prefix { $0 != "." })
            let neighbor = Neighbor(uri: uri, name: name.isEmpty ? host : name)
            if !found.contains(neighbor) { found.append(neighbor) }
        }
        return found.sorted { ($0.name, $0.uri) < ($1.name, $1.uri) }
    }
}
