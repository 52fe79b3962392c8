import CLinux
import Foundation
import Glibc
import NimbusHarness

/// The floor under a lone command's cost: a server that does nothing but what every MPD-style
/// daemon must do for one round trip — wake in `epoll_wait`, `recv` the line, `send` "OK" —
/// and no command parsing, no state, no allocation. Run as `nimbus-bench floor-server PORT`
/// on the same core as the daemons, it shows how much of MPD's CPU per `ping` is the kernel's:
/// the issue asked for 0.8× MPD's CPU and 1.25× its round trips, and this loop alone (measured
/// at 0.80–0.84× and 1.06×) is where that goal would have to start. An io_uring variant of
/// the same loop (one `io_uring_enter` per round trip instead of three syscalls) was measured
/// and cost more, 8.1 µs against epoll's 6.7–7.1: the receive parks on a poll and completes
/// through task work.
enum FloorServer {
    static func serve(port: Int) -> Never {
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var one: Int32 = 1
        setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = UInt32(0x7f00_0001).bigEndian
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, listen(listener, 16) == 0 else { fatalError("floor-server: cannot listen on \(port)") }
        let poller = epoll_create1(0)
        var event = epoll_event(events: EPOLLIN.rawValue, data: epoll_data_t(fd: listener))
        epoll_ctl(poller, EPOLL_CTL_ADD, listener, &event)
        var events = [epoll_event](repeating: epoll_event(), count: 16)
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: 4096, alignment: 16)
        let greeting = Array("OK MPD 0.24.0\n".utf8)
        let okay = Array("OK\n".utf8)
        while true {
            let ready = epoll_wait(poller, &events, Int32(events.count), -1)
            for index in 0..<max(0, Int(ready)) {
                let fd = events[index].data.fd
                if fd == listener {
                    let client = clinux_accept4(listener, Int32(SOCK_NONBLOCK.rawValue))
                    guard client >= 0 else { continue }
                    setsockopt(client, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
                    _ = send(client, greeting, greeting.count, 0)
                    var added = epoll_event(events: EPOLLIN.rawValue, data: epoll_data_t(fd: client))
                    epoll_ctl(poller, EPOLL_CTL_ADD, client, &added)
                    continue
                }
                let count = recv(fd, buffer, 4096, 0)
                if count <= 0 {
                    if count == 0 || errno != EAGAIN { close(fd) }
                    continue
                }
                // One "OK" per line received: the bench sends one `ping` and waits.
                var lines = 0
                for offset in 0..<count where buffer.load(fromByteOffset: offset, as: UInt8.self) == 0x0A { lines += 1 }
                for _ in 0..<lines { _ = send(fd, okay, okay.count, 0) }
            }
        }
    }
}

/// The floor loop running as its own process pinned to the daemons' core, measured the way
/// `CommandCost` measures a daemon and in the same rounds as MPD, so both see the same machine.
final class RunningFloor {
    private let process = Process()
    private let client: LineClient
    private(set) var rates: [Double] = []
    private(set) var costs: [Double] = []

    init(cpu: Int) throws {
        let port = freePort()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/taskset")
        process.arguments = ["-c", String(cpu), try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"), "floor-server", String(port)]
        try process.run()
        var connected: LineClient?
        _ = waitUntil(timeout: 10) {
            connected = try? LineClient.connected(.tcp(host: "127.0.0.1", port: port)).0
            return connected != nil
        }
        guard let connected else {
            process.terminate()
            throw FloorError()
        }
        client = connected
    }

    deinit {
        process.terminate()
        process.waitUntilExit()
    }

    /// One round of `commands` lone `ping`s.
    func measure(commands: Int) {
        let before = ProcessStats.cpuMicroseconds(process.processIdentifier)
        let elapsed = seconds { for _ in 0..<commands { _ = try! client.request("ping") } }
        costs.append((ProcessStats.cpuMicroseconds(process.processIdentifier) - before) / Double(commands))
        rates.append(Double(commands) / elapsed)
    }
}

struct FloorError: Error, CustomStringConvertible {
    var description: String { "floor-server did not start" }
}
