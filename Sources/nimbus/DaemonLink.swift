import Foundation
import Glibc
import NimbusConfig

/// The running daemon, found as mpc finds MPD: `MPD_HOST` (a host, `password@host` or a
/// socket path) and `MPD_PORT`, else the config's first address and port.
struct DaemonLink {
    let configuration: DaemonConfiguration

    /// `update ACCOUNT`: mounts an account that had no token and rescans it with the new one.
    func update(_ account: String) -> String {
        let environment = ProcessInfo.processInfo.environment
        var host = environment["MPD_HOST"] ?? configuration.bindAddresses.first ?? "127.0.0.1"
        var password: String?
        if let at = host.lastIndex(of: "@"), !host.hasPrefix("/") {
            password = String(host[..<at])
            host = String(host[host.index(after: at)...])
        }
        if host == "any" || host == "0.0.0.0" || host.isEmpty { host = "127.0.0.1" }
        let port = environment["MPD_PORT"].flatMap(Int.init) ?? configuration.port
        guard let fd = connect(host: host, port: port) else {
            return "nimbusd is not running at \(host)\(host.hasPrefix("/") ? "" : ":\(port)"); it uses the new sign-in when it starts."
        }
        defer { close(fd) }
        var answers: [String] = []
        var requests = password.map { ["password \(quoted($0))"] } ?? []
        requests.append("update \(quoted(account))")
        guard readAnswer(fd)?.hasPrefix("OK MPD") == true else { return "The daemon at \(host) did not greet as MPD does." }
        for request in requests {
            _ = request.withCString { Glibc.send(fd, $0, strlen($0), 0) }
            _ = "\n".withCString { Glibc.send(fd, $0, 1, 0) }
            answers.append(readAnswer(fd) ?? "no answer")
        }
        let last = answers.last ?? ""
        if last.hasPrefix("ACK") { return "nimbusd did not take it up (\(last)); restart it to use the new sign-in." }
        return "nimbusd is reading \(account) now."
    }

    private func quoted(_ text: String) -> String {
        "\"" + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
    }

    /// The answer's last line (`OK`, `ACK …`, or the greeting).
    private func readAnswer(_ fd: Int32) -> String? {
        var data: [UInt8] = []
        var byte: UInt8 = 0
        var lines: [String] = []
        while recv(fd, &byte, 1, 0) == 1 {
            if byte != 0x0A { data.append(byte); continue }
            let line = String(decoding: data, as: UTF8.self)
            data.removeAll()
            lines.append(line)
            if line == "OK" || line.hasPrefix("ACK ") || line.hasPrefix("OK MPD ") { return line }
        }
        return lines.last
    }

    private func connect(host: String, port: Int) -> Int32? {
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
