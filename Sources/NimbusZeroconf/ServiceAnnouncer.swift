import Foundation
import Glibc
import NimbusSupport

/// Announces the MPD service on the LAN by multicast DNS (RFC 6762/6763), as MPD does through
/// Avahi, so phone clients (M.A.L.P., MPDroid, Rigelian) find the box without typing an
/// address: `NAME._mpd._tcp.local` with an SRV record for the port and A records for this
/// host's addresses. Its own small responder on one thread, since no mDNS library is allowed:
/// it answers queries for the service type, the instance and the host name, announces at
/// start and says goodbye (TTL 0) at shutdown.
public final class ServiceAnnouncer: @unchecked Sendable {
    // Invariant: set up in init, then `socket` is only used by the responder thread and by
    // `stop` (which only sends), and `running` is atomic through the lock.
    private let fd: Int32
    private let records: ServiceRecords
    private let interfaces: [in_addr]
    private let logger: Logger
    private let lock = NSLock()
    private var running = true

    static let group = inet_addr("224.0.0.251")
    static let port: UInt16 = 5353

    /// Nil (after a log line) when no interface can take part in multicast.
    public init?(name: String, port: Int, logger: Logger) {
        self.logger = logger
        let addresses = Self.interfaceAddresses()
        guard !addresses.isEmpty else {
            logger.warning("no interface with multicast; not announcing")
            return nil
        }
        interfaces = addresses
        let host = Self.hostName()
        records = ServiceRecords(
            instance: name.replacingOccurrences(of: "%h", with: host), host: host, port: UInt16(clamping: port),
            addresses: addresses.map { withUnsafeBytes(of: $0.s_addr) { Array($0) } })
        fd = Glibc.socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
        guard fd >= 0, Self.configure(fd, interfaces: addresses) else {
            logger.warning("cannot listen on UDP port 5353: \(String(cString: strerror(errno))); not announcing")
            if fd >= 0 { close(fd) }
            return nil
        }
        DaemonThread.start(name: "zeroconf") { [self] in serve() }
        logger.info("announcing \"\(records.instance)\" on port \(port)")
    }

    /// Says goodbye, so browsers drop the service at once rather than when its TTL runs out.
    public func stop() {
        let wasRunning = lock.withLock {
            defer { running = false }
            return running
        }
        guard wasRunning else { return }
        send(DNSMessage.response(answers: records.all(ttl: 0)))
    }

    private var isRunning: Bool { lock.withLock { running } }

    private func serve() {
        // Announce twice, a second apart (RFC 6762 §8.3).
        announce()
        var announced = 1
        var buffer = [UInt8](repeating: 0, count: 9000)
        while isRunning {
            var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let ready = poll(&poller, 1, 1000)
            if ready == 0 {
                if announced < 2 {
                    announce()
                    announced += 1
                }
                continue
            }
            guard ready > 0 else { continue }
            var source = sockaddr_in()
            var length = socklen_t(MemoryLayout<sockaddr_in>.size)
            let count = buffer.withUnsafeMutableBytes { raw in
                withUnsafeMutablePointer(to: &source) {
                    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { recvfrom(fd, raw.baseAddress, raw.count, 0, $0, &length) }
                }
            }
            guard count > 0, isRunning, let query = DNSMessage.parseQuery(Array(buffer[..<count])) else { continue }
            answer(query, from: source)
        }
    }

    private func announce() {
        send(DNSMessage.response(answers: records.all(ttl: nil)))
    }

    private func answer(_ query: DNSQuery, from source: sockaddr_in) {
        let (answers, additional) = records.answers(to: query.questions)
        guard !answers.isEmpty else { return }
        if UInt16(bigEndian: source.sin_port) != Self.port {
            // A legacy one-shot resolver: a unicast reply with its id and questions, short TTLs.
            let questions = query.questions.filter { question in answers.contains { $0.name == question.name } }
            let shortened = (answers + additional).map { record in
                var record = record
                record.ttl = min(record.ttl, 10)
                record.unique = false
                return record
            }
            let reply = DNSMessage.response(
                id: query.id, questions: questions, answers: Array(shortened.prefix(answers.count)),
                additional: Array(shortened.dropFirst(answers.count)))
            sendTo(reply, source)
            return
        }
        send(DNSMessage.response(answers: answers, additional: additional))
    }

    /// To the mDNS group on every interface.
    private func send(_ message: [UInt8]) {
        var destination = sockaddr_in()
        destination.sin_family = sa_family_t(AF_INET)
        destination.sin_port = Self.port.bigEndian
        destination.sin_addr.s_addr = Self.group
        for var interface in interfaces {
            setsockopt(fd, Int32(IPPROTO_IP), IP_MULTICAST_IF, &interface, socklen_t(MemoryLayout<in_addr>.size))
            sendTo(message, destination)
        }
    }

    private func sendTo(_ message: [UInt8], _ destination: sockaddr_in) {
        var destination = destination
        _ = message.withUnsafeBytes { raw in
            withUnsafePointer(to: &destination) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    sendto(fd, raw.baseAddress, raw.count, 0, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
        }
    }

    /// Port 5353 shared with any other responder on the host (Avahi), the group joined on
    /// every interface, our own packets looped back for browsers on this host.
    private static func configure(_ fd: Int32, interfaces: [in_addr]) -> Bool {
        var one: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        setsockopt(fd, SOL_SOCKET, SO_REUSEPORT, &one, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = INADDR_ANY
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0 else { return false }
        var joined = false
        for interface in interfaces {
            var request = ip_mreq(imr_multiaddr: in_addr(s_addr: group), imr_interface: interface)
            if setsockopt(fd, Int32(IPPROTO_IP), IP_ADD_MEMBERSHIP, &request, socklen_t(MemoryLayout<ip_mreq>.size)) == 0 {
                joined = true
            }
        }
        var ttl: UInt8 = 255
        setsockopt(fd, Int32(IPPROTO_IP), IP_MULTICAST_TTL, &ttl, socklen_t(MemoryLayout<UInt8>.size))
        var loop: UInt8 = 1
        setsockopt(fd, Int32(IPPROTO_IP), IP_MULTICAST_LOOP, &loop, socklen_t(MemoryLayout<UInt8>.size))
        return joined
    }

    /// IPv4 addresses of interfaces that are up and multicast-capable; loopback only when
    /// there is nothing else (a box without a network, or a test's network namespace).
    static func interfaceAddresses() -> [in_addr] {
        var list: UnsafeMutablePointer<ifaddrs>?
        guard getifaddrs(&list) == 0, let first = list else { return [] }
        defer { freeifaddrs(list) }
        var external: [in_addr] = []
        var loopback: [in_addr] = []
        var cursor: UnsafeMutablePointer<ifaddrs>? = first
        while let entry = cursor {
            defer { cursor = entry.pointee.ifa_next }
            let flags = Int32(entry.pointee.ifa_flags)
            guard let address = entry.pointee.ifa_addr, Int32(address.pointee.sa_family) == AF_INET,
                flags & Int32(IFF_UP) != 0, flags & Int32(IFF_MULTICAST) != 0
            else { continue }
            let ipv4 = address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { $0.pointee.sin_addr }
            if flags & Int32(IFF_LOOPBACK) != 0 { loopback.append(ipv4) } else { external.append(ipv4) }
        }
        return external.isEmpty ? loopback : external
    }

    static func hostName() -> String {
        var buffer = [CChar](repeating: 0, count: 256)
        guard gethostname(&buffer, 255) == 0 else { return "nimbus" }
        let bytes = buffer.prefix { $0 != 0 && $0 != CChar(UInt8(ascii: ".")) }.map { UInt8(bitPattern: $0) }
        let short = String(decoding: bytes, as: UTF8.self)
        return short.isEmpty ? "nimbus" : short
    }
}
