import CLinux
import Glibc

/// systemd socket activation (`sd_listen_fds(3)` without libsystemd): when `LISTEN_PID` names
/// this process, descriptors 3 … 3+`LISTEN_FDS`−1 are listening sockets systemd bound for us —
/// a `nimbusd.socket` unit's TCP port and Unix socket. As MPD does, they then replace every
/// `bind_to_address`: a client connecting to the activated socket must reach the daemon.
public enum SocketActivation {
    static let firstDescriptor: Int32 = 3

    /// The passed listeners, adopted (non-blocking, close-on-exec) and described as they would be
    /// logged; empty when the process was not socket-activated. The variables are removed (as
    /// `sd_listen_fds(true)`), so a child the daemon starts does not take the sockets for its own.
    public static func listeners(environment: [String: String]) -> [ListeningSocket.Bound] {
        defer {
            unsetenv("LISTEN_PID")
            unsetenv("LISTEN_FDS")
            unsetenv("LISTEN_FDNAMES")
        }
        guard let pid = environment["LISTEN_PID"].flatMap(Int32.init), pid == getpid(),
            let count = environment["LISTEN_FDS"].flatMap(Int32.init), count > 0, count < 1024
        else { return [] }
        return (firstDescriptor..<firstDescriptor + count).compactMap(ListeningSocket.adopt(fd:))
    }
}

extension ListeningSocket {
    /// A socket someone else bound (systemd): made non-blocking and close-on-exec; nil when the
    /// descriptor is not a listening stream socket.
    public static func adopt(fd: Int32) -> Bound? {
        var listening: Int32 = 0
        var size = socklen_t(MemoryLayout<Int32>.size)
        guard getsockopt(fd, SOL_SOCKET, SO_ACCEPTCONN, &listening, &size) == 0, listening != 0 else { return nil }
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
        _ = fcntl(fd, F_SETFD, fcntl(fd, F_GETFD) | FD_CLOEXEC)
        var address = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        guard address.ss_family == sa_family_t(AF_UNIX) else {
            return Bound(fd: fd, isLocal: false, description: localAddress(of: fd) ?? "socket \(fd)")
        }
        let path = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr_un.self, capacity: 1) { un -> String in
                withUnsafeBytes(of: un.pointee.sun_path) { raw in
                    let bytes = Array(raw.prefix(max(0, Int(length) - MemoryLayout<sa_family_t>.size)))
                    if bytes.first == 0 { return "@" + String(decoding: bytes.dropFirst().prefix { $0 != 0 }, as: UTF8.self) }
                    return String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
                }
            }
        }
        return Bound(fd: fd, isLocal: true, description: path, ownsPath: false)
    }
}
