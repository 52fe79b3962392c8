import Foundation
import Glibc
import NimbusConfig

/// Where the running daemon is, found as mpc finds MPD: `--host`/`--port`, else `MPD_HOST`
/// (a host, `password@host` or a socket path) and `MPD_PORT`, else the config's first
/// address and port — or, as libmpdclient, the user's `$XDG_RUNTIME_DIR/mpd/socket` when the
/// config names no `bind_to_address` and that socket exists.
struct DaemonAddress {
    var host: String
    var port: Int
    var password: String?

    init(configuration: DaemonConfiguration?, host hostOption: String?, port portOption: Int?) {
        let environment = ProcessInfo.processInfo.environment
        let runtime = configuration?.bindAddressConfigured == true
            ? nil : ConfigSearch.runtimeSocket(environment: environment, effectiveUser: geteuid()).flatMap { path in
                var info = stat()
                return stat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFSOCK ? path : nil
            }
        var host = hostOption ?? environment["MPD_HOST"] ?? runtime ?? configuration?.bindAddresses.first ?? "127.0.0.1"
        if let at = host.lastIndex(of: "@"), !host.hasPrefix("/") {
            password = String(host[..<at])
            host = String(host[host.index(after: at)...])
        }
        if host == "any" || host == "0.0.0.0" || host.isEmpty { host = "127.0.0.1" }
        self.host = host
        port = portOption ?? environment["MPD_PORT"].flatMap(Int.init) ?? configuration?.port ?? 6600
    }

    var description: String { host.hasPrefix("/") ? host : "\(host):\(port)" }
}

/// One connection to the daemon speaking the MPD protocol, as a client would.
final class DaemonLink {
    enum Answer {
        case ok([(key: String, value: String)])
        case ack(String)
    }

    let address: DaemonAddress
    fileprivate let fd: Int32
    fileprivate var buffer: [UInt8] = []

    /// Nil when nothing answers at the address, or it does not greet as MPD does.
    init?(_ address: DaemonAddress) {
        self.address = address
        guard let fd = Self.connect(host: address.host, port: address.port) else { return nil }
        self.fd = fd
        guard readLine()?.hasPrefix("OK MPD ") == true else {
            close(fd)
            return nil
        }
        if let password = address.password, case .ack = request("password " + Self.quoted(password)) {
            close(fd)
            return nil
        }
    }

    deinit { close(fd) }

    func request(_ command: String) -> Answer {
        guard send(command) else { return .ack("the connection to nimbusd closed") }
        var fields: [(key: String, value: String)] = []
        while let line = readLine() {
            if line == "OK" { return .ok(fields) }
            if line.hasPrefix("ACK ") { return .ack(line) }
            if let colon = line.range(of: ": ") {
                fields.append((String(line[..<colon.lowerBound]), String(line[colon.upperBound...])))
            }
        }
        return .ack("the connection to nimbusd closed")
    }

    private func send(_ command: String) -> Bool {
        let line = Array((command + "\n").utf8)
        var sent = 0
        while sent < line.count {
            let count = line[sent...].withUnsafeBufferPointer { Glibc.send(fd, $0.baseAddress, $0.count, 0) }
            guard count > 0 else { return false }
            sent += count
        }
        return true
    }

    static func quoted(_ text: String) -> String {
        "\"" + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
    }

    fileprivate func readLine() -> String? {
        while true {
            if let newline = buffer.firstIndex(of: 0x0A) {
                let line = String(decoding: buffer[..<newline], as: UTF8.self)
                buffer.removeSubrange(...newline)
                return line
            }
            var chunk = [UInt8](repeating: 0, count: 16384)
            let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            guard count > 0 else { return nil }
            buffer += chunk[..<count]
        }
    }

    private static func connect(host: String, port: Int) -> Int32? {
        if host.hasPrefix("/") {
            let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
            guard fd >= 0 else { return nil }
            var address = sockaddr_un()
            address.sun_family = sa_family_t(AF_UNIX)
            let bytes = Array(host.utf8.prefix(107))
            withUnsafeMutableBytes(of: &address.sun_path) { raw in
                for (index, byte) in bytes.enumerated() { raw[index] = byte }
            }
            let result = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
            }
            if result == 0 { return fd }
            close(fd)
            return nil
        }
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, String(port), &hints, &list) == 0, let list else { return nil }
        defer { freeaddrinfo(list) }
        var entry: UnsafeMutablePointer<addrinfo>? = list
        while let current = entry {
            let fd = socket(current.pointee.ai_family, current.pointee.ai_socktype, current.pointee.ai_protocol)
            if fd >= 0, Glibc.connect(fd, current.pointee.ai_addr, current.pointee.ai_addrlen) == 0 { return fd }
            if fd >= 0 { close(fd) }
            entry = current.pointee.ai_next
        }
        return nil
    }
}

extension DaemonLink {
    /// The running daemon, or the end of the run with why it cannot be reached.
    static func required(_ options: Options) -> DaemonLink {
        let address = options.address(options.configuration(required: false))
        guard let link = DaemonLink(address) else {
            Console.fail("nimbusd is not running at \(address.description) (or refused the password); start it, or name it with --host and --port")
        }
        return link
    }

    /// The answer's fields, or the end of the run with the daemon's reason.
    func fields(_ command: String, failing what: String) -> [(key: String, value: String)] {
        switch request(command) {
        case .ok(let fields): return fields
        case .ack(let message): Console.fail("\(what): \(Self.reason(message))")
        }
    }

    /// An ACK line without its code and command: what the daemon says went wrong.
    static func reason(_ ack: String) -> String {
        guard ack.hasPrefix("ACK "), let brace = ack.range(of: "} ") else { return ack }
        return String(ack[brace.upperBound...])
    }

    /// Idles on `subsystems` until something changes (true) or `stop` says to give up (false:
    /// the idle is ended with `noidle`).
    func idle(_ subsystems: String, until stop: () -> Bool) -> Bool {
        guard send("idle " + subsystems) else { return false }
        while true {
            if stop() {
                _ = send("noidle")
                while let line = readLine(), line != "OK", !line.hasPrefix("ACK ") {}
                return false
            }
            if buffer.isEmpty {
                var descriptor = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
                guard poll(&descriptor, 1, 100) > 0 else { continue }
            }
            guard let line = readLine() else { return false }
            if line == "OK" || line.hasPrefix("ACK ") { return line == "OK" }
        }
    }
}
