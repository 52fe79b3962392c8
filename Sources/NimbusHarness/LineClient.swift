import Foundation
import Glibc

/// A blocking MPD protocol client for tests: real sockets, explicit deadlines, no sleeps.
public final class LineClient {
    public enum Endpoint: Sendable {
        case tcp(host: String, port: Int)
        case unix(path: String)
    }

    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    public let fd: Int32
    private var buffer: [UInt8] = []
    /// Bytes before this index were already returned; compacted lazily so reading many lines
    /// stays linear.
    private var consumed = 0
    public private(set) var isClosedByPeer = false

    public init(_ endpoint: Endpoint, timeout: Double = 5) throws {
        switch endpoint {
        case .tcp(let host, let port):
            fd = try Self.connectTCP(host: host, port: port)
        case .unix(let path):
            fd = try Self.connectUnix(path: path)
        }
        var tv = timeval(tv_sec: Int(timeout), tv_usec: Int((timeout - Double(Int(timeout))) * 1_000_000))
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
    }

    deinit { close(fd) }

    /// Connects and consumes the greeting line, returning it.
    public static func connected(_ endpoint: Endpoint, timeout: Double = 5) throws -> (LineClient, String) {
        let client = try LineClient(endpoint, timeout: timeout)
        return (client, try client.readLine())
    }

    public func send(_ text: String) throws {
        try sendBytes(Array(text.utf8))
    }

    public func sendBytes(_ bytes: [UInt8]) throws {
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes { send_(fd, $0.baseAddress! + offset, bytes.count - offset) }
            if written < 0 { throw Failure(description: "send: \(String(cString: strerror(errno)))") }
            offset += written
        }
    }

    /// Sends one request line and reads its response up to OK or ACK.
    public func request(_ line: String) throws -> [String] {
        try send(line + "\n")
        return try readResponse()
    }

    /// Lines up to and including the terminating `OK` or `ACK …` line.
    public func readResponse() throws -> [String] {
        var lines: [String] = []
        while true {
            let line = try readLine()
            lines.append(line)
            if line == "OK" || line.hasPrefix("ACK ") { return lines }
        }
    }

    public func readLine() throws -> String {
        while true {
            if let newline = buffer.firstIndex(of: 0x0A) {
                let line = String(decoding: buffer[..<newline], as: UTF8.self)
                buffer.removeSubrange(...newline)
                return line
            }
            guard try fill() else { throw Failure(description: "connection closed; pending \(buffer.count) bytes") }
        }
    }

    /// Exactly `count` raw bytes (binary responses).
    public func readBytes(_ count: Int) throws -> [UInt8] {
        while buffer.count < count {
            guard try fill() else { throw Failure(description: "connection closed") }
        }
        defer { buffer.removeFirst(count) }
        return Array(buffer[..<count])
    }

    /// Sends raw text and returns everything until the server closes the connection.
    public func sendAndReadUntilClosed(_ text: String) throws -> String {
        try send(text)
        return try readUntilClosed()
    }

    /// Everything until the server closes the connection.
    public func readUntilClosed() throws -> String {
        while try fill() {}
        defer { buffer.removeAll() }
        return String(decoding: buffer, as: UTF8.self)
    }

    /// Whatever arrives until the peer closes or stays silent for `seconds`.
    public func readUntilClosedOrQuiet(seconds: Double) throws -> String {
        var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        while poll(&poller, 1, Int32(seconds * 1000)) > 0, try fill() {}
        defer { buffer.removeAll() }
        return String(decoding: buffer, as: UTF8.self)
    }

    /// True when nothing arrives within `seconds` and the connection is still open.
    public func isQuiet(for seconds: Double) throws -> Bool {
        var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        if !buffer.isEmpty { return false }
        return poll(&poller, 1, Int32(seconds * 1000)) == 0
    }

    /// Reads more data; false at end of stream.
    private func fill() throws -> Bool {
        var chunk = [UInt8](repeating: 0, count: 65536)
        let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress!, $0.count, 0) }
        if count < 0 {
            if errno == ECONNRESET {
                isClosedByPeer = true
                return false
            }
            throw Failure(description: "recv: \(String(cString: strerror(errno)))")
        }
        if count == 0 {
            isClosedByPeer = true
            return false
        }
        buffer.append(contentsOf: chunk[..<count])
        return true
    }

    private func send_(_ fd: Int32, _ pointer: UnsafeRawPointer, _ count: Int) -> Int {
        Glibc.send(fd, pointer, count, Int32(MSG_NOSIGNAL))
    }

    private static func connectTCP(host: String, port: Int) throws -> Int32 {
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, String(port), &hints, &list) == 0, let info = list else {
            throw Failure(description: "cannot resolve \(host)")
        }
        defer { freeaddrinfo(list) }
        let fd = socket(info.pointee.ai_family, Int32(SOCK_STREAM.rawValue | SOCK_CLOEXEC.rawValue), 0)
        guard connect(fd, info.pointee.ai_addr, info.pointee.ai_addrlen) == 0 else {
            let message = String(cString: strerror(errno))
            close(fd)
            throw Failure(description: "connect \(host):\(port): \(message)")
        }
        return fd
    }

    private static func connectUnix(path: String) throws -> Int32 {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        var bytes = Array(path.utf8)
        if bytes.first == UInt8(ascii: "@") { bytes[0] = 0 }
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: bytes) }
        let length = socklen_t(MemoryLayout<sa_family_t>.size + bytes.count + (bytes.first == 0 ? 0 : 1))
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue | SOCK_CLOEXEC.rawValue), 0)
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, length) }
        }
        guard result == 0 else {
            let message = String(cString: strerror(errno))
            close(fd)
            throw Failure(description: "connect \(path): \(message)")
        }
        return fd
    }
}

extension LineClient {
    /// Polls `status` until it shows every one of `lines` (`state: stop`, `song: 2`), for at
    /// most `timeout` seconds; false if it never did.
    public func waitForStatus(_ lines: String..., timeout: Double = 30) -> Bool {
        waitUntil(timeout: timeout) {
            guard let status = try? request("status") else { return false }
            return lines.allSatisfy(status.contains)
        }
    }

    /// Polls `status` until the song playing is at least `seconds` in (what the outputs
    /// played, as MPD counts it), so a test waits on playback rather than the clock.
    public func waitForElapsed(_ seconds: Double, timeout: Double = 30) -> Bool {
        waitUntil(timeout: timeout) {
            guard let status = try? request("status"),
                let line = status.first(where: { $0.hasPrefix("elapsed: ") }), let elapsed = Double(line.dropFirst(9))
            else { return false }
            return elapsed >= seconds
        }
    }
}
