import Foundation
import Glibc

/// The loopback redirect of an installed-app sign-in: a listener on 127.0.0.1 that the
/// browser is sent to with the code. When the browser runs on another device the redirect
/// cannot arrive, so the address the user pastes on stdin counts just the same.
final class LoopbackReceiver {
    let port: Int
    private let listener: Int32

    struct Unavailable: Error {}

    init() throws(Unavailable) {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
                bind(fd, pointer, length) == 0 && listen(fd, 4) == 0 && getsockname(fd, pointer, &length) == 0
            }
        }
        guard fd >= 0, bound else {
            if fd >= 0 { close(fd) }
            throw Unavailable()
        }
        listener = fd
        port = Int(UInt16(bigEndian: address.sin_port))
    }

    deinit { close(listener) }

    /// The address the browser was sent to, or the line the user pasted; nil when the user
    /// pressed Ctrl-C or closed stdin.
    func wait() -> String? {
        while true {
            var fds = [pollfd(fd: listener, events: Int16(POLLIN), revents: 0), pollfd(fd: STDIN_FILENO, events: Int16(POLLIN), revents: 0)]
            let ready = poll(&fds, 2, 100)
            if Console.wasInterrupted { return nil }
            guard ready > 0 else { continue }
            if fds[1].revents != 0 {
                guard let line = readLine(strippingNewline: true) else { return nil }
                if !line.trimmingCharacters(in: .whitespaces).isEmpty { return line }
            }
            if fds[0].revents != 0, let target = answerOne() { return "http://127.0.0.1:\(port)" + target }
        }
    }

    /// Reads one request; answers it and returns its target when it carries the sign-in's
    /// answer (a browser also asks for /favicon.ico).
    private func answerOne() -> String? {
        let client = accept(listener, nil, nil)
        guard client >= 0 else { return nil }
        defer { close(client) }
        var request: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while request.count < 16_384 {
            let count = recv(client, &buffer, buffer.count, 0)
            if count <= 0 { break }
            request += buffer[..<count]
            if request.count >= 4, Array(request.suffix(4)) == [13, 10, 13, 10] { break }
        }
        let line = String(decoding: request.prefix { $0 != 13 && $0 != 10 }, as: UTF8.self).split(separator: " ")
        let target = line.count >= 2 ? String(line[1]) : "/"
        let answers = target.contains("code=") || target.contains("error=")
        let body = answers ? "<!doctype html><title>Nimbus</title><p>Nimbus got the answer; you can close this tab.</p>" : "Not found"
        let head = "HTTP/1.1 \(answers ? "200 OK" : "404 Not Found")\r\nContent-Type: text/html; charset=utf-8\r\n"
            + "Content-Length: \(body.utf8.count)\r\nConnection: close\r\n\r\n"
        let response = Array((head + body).utf8)
        _ = response.withUnsafeBytes { send(client, $0.baseAddress, $0.count, 0) }
        return answers ? target : nil
    }
}
