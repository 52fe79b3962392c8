import CLinux
import Glibc

/// Creates the non-blocking listening sockets for one `bind_to_address` value.
///
/// `any` means every IPv6 and IPv4 address (two sockets, IPv6 made v6-only so both bind);
/// an absolute path is a Unix socket, `@name` an abstract one; anything else is resolved with
/// getaddrinfo and may give one socket per address (`localhost` → ::1 and 127.0.0.1).
/// The MPD port, the web page and `/rest/`, and the httpd output all bind through here, so
/// each listens exactly where its configuration says and logs what it really bound.
public enum ListeningSocket {
    public struct Bound: Sendable {
        public let fd: Int32
        public let isLocal: Bool
        /// `127.0.0.1:6600`, `[::]:6600`, `/run/mpd/socket`: what was bound, as logged.
        public let description: String
        /// False for a socket systemd bound: its path is not ours to unlink at shutdown.
        public var ownsPath = true

        public init(fd: Int32, isLocal: Bool, description: String, ownsPath: Bool = true) {
            self.fd = fd
            self.isLocal = isLocal
            self.description = description
            self.ownsPath = ownsPath
        }
    }

    /// A Unix socket only its owner may use (mode 0600): MPD's `$XDG_RUNTIME_DIR/mpd/socket`.
    public static func openPrivate(path: String) throws(SystemError) -> Bound {
        let directory = String(path[..<(path.lastIndex(of: "/") ?? path.startIndex)])
        if !directory.isEmpty { mkdir(directory, 0o700) }
        return try unix(path: path, mode: 0o600)
    }

    public static func open(address: String, port: Int) throws(SystemError) -> [Bound] {
        if address.hasPrefix("/") || address.hasPrefix("@") {
            return [try unix(path: address)]
        }
        if address == "any" {
            var bound: [Bound] = []
            if let v6 = try? inet(host: "::", port: port, family: AF_INET6) { bound += v6 }
            do {
                bound += try inet(host: "0.0.0.0", port: port, family: AF_INET)
            } catch {
                if bound.isEmpty { throw error }
            }
            return bound
        }
        var host = address
        if host.hasPrefix("[") && host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        return try inet(host: host, port: port, family: AF_UNSPEC)
    }

    private static func inet(host: String, port: Int, family: Int32) throws(SystemError) -> [Bound] {
        var hints = addrinfo()
        hints.ai_family = family
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        // A numeric address is taken as written. AI_ADDRCONFIG (no IPv6 results without an
        // IPv6 address, say) only for names, and not even then when it leaves nothing: it
        // ignores loopback, so a box booting before its network came up could not listen.
        var list: UnsafeMutablePointer<addrinfo>?
        var status: Int32 = EAI_NONAME
        for flags in [AI_PASSIVE | AI_NUMERICHOST, AI_PASSIVE | AI_ADDRCONFIG, AI_PASSIVE] where status != 0 {
            hints.ai_flags = flags
            status = getaddrinfo(host, String(port), &hints, &list)
        }
        guard status == 0, let first = list else {
            throw SystemError("cannot resolve \"\(host)\": \(String(cString: gai_strerror(status)))", code: EINVAL)
        }
        defer { freeaddrinfo(first) }
        var result: [Bound] = []
        var node: UnsafeMutablePointer<addrinfo>? = first
        while let info = node {
            do {
                let fd = try bindAndListen(info.pointee, label: "\(host):\(port)")
                result.append(Bound(fd: fd, isLocal: false, description: localAddress(of: fd) ?? "\(host):\(port)"))
            } catch {
                for bound in result { close(bound.fd) }
                throw error
            }
            node = info.pointee.ai_next
        }
        return result
    }

    private static func bindAndListen(_ info: addrinfo, label: String) throws(SystemError) -> Int32 {
        let fd = socket(info.ai_family, info.ai_socktype | Int32(SOCK_NONBLOCK.rawValue | SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw SystemError("socket") }
        var one: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        if info.ai_family == AF_INET6 {
            setsockopt(fd, Int32(IPPROTO_IPV6), IPV6_V6ONLY, &one, socklen_t(MemoryLayout<Int32>.size))
        }
        guard bind(fd, info.ai_addr, info.ai_addrlen) == 0 else {
            let error = SystemError("Failed to bind to '\(label)'")
            close(fd)
            throw error
        }
        guard listen(fd, 256) == 0 else {
            let error = SystemError("listen")
            close(fd)
            throw error
        }
        return fd
    }

    private static func unix(path: String, mode: mode_t = 0o666) throws(SystemError) -> Bound {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        var bytes = Array(path.utf8)
        let abstract = bytes.first == UInt8(ascii: "@")
        if abstract { bytes[0] = 0 }
        let capacity = MemoryLayout.size(ofValue: address.sun_path)
        guard bytes.count < capacity else { throw SystemError("socket path too long: \(path)", code: ENAMETOOLONG) }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: bytes)
        }
        let length = socklen_t(MemoryLayout<sa_family_t>.size + bytes.count + (abstract ? 0 : 1))
        if !abstract { unlink(path) }
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue | SOCK_NONBLOCK.rawValue | SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw SystemError("socket") }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) }
        }
        guard bound == 0 else {
            let error = SystemError("Failed to bind to '\(path)'")
            close(fd)
            throw error
        }
        if !abstract { chmod(path, mode) }
        guard listen(fd, 256) == 0 else {
            let error = SystemError("listen")
            close(fd)
            throw error
        }
        return Bound(fd: fd, isLocal: true, description: path)
    }

    /// The peer of a TCP connection as MPD logs it: `127.0.0.1:46208`, `[::1]:46208`.
    /// MPD's name for a Unix-socket client: `pid=N uid=N` from the kernel's peer credentials.
    public static func peerCredentials(of fd: Int32) -> String {
        var pid: Int32 = 0
        var uid: UInt32 = 0
        guard clinux_peer_credentials(fd, &pid, &uid) == 0 else { return "local socket" }
        return pid > 0 ? "pid=\(pid) uid=\(uid)" : "uid=\(uid)"
    }

    public static func peerAddress(of fd: Int32) -> String {
        name(of: fd, peer: true) ?? "unknown"
    }

    /// The address a socket is bound to, written as `peerAddress` writes one: `[::]:6680`.
    public static func localAddress(of fd: Int32) -> String? {
        name(of: fd, peer: false)
    }

    private static func name(of fd: Int32, peer: Bool) -> String? {
        var address = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let ok = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { peer ? getpeername(fd, $0, &length) : getsockname(fd, $0, &length) }
        }
        guard ok == 0 else { return nil }
        var host = [CChar](repeating: 0, count: Int(NI_MAXHOST))
        var service = [CChar](repeating: 0, count: Int(NI_MAXSERV))
        let status = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                getnameinfo($0, length, &host, socklen_t(host.count), &service, socklen_t(service.count), NI_NUMERICHOST | NI_NUMERICSERV)
            }
        }
        guard status == 0 else { return nil }
        let name = String(decoding: host.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        let port = String(decoding: service.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return address.ss_family == sa_family_t(AF_INET6) ? "[\(name)]:\(port)" : "\(name):\(port)"
    }
}
