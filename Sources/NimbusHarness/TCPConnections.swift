import Foundation

/// What the kernel says about a loopback port (from /proc/net/tcp and tcp6), so a test can
/// wait for a listener to have connected, or a server to have gone, instead of sleeping.
public enum TCPConnections {
    private static func rows() -> [(local: Int, remote: Int, state: Int)] {
        ["/proc/net/tcp", "/proc/net/tcp6"].flatMap { path -> [(local: Int, remote: Int, state: Int)] in
            // Read to the end: /proc files say they are empty, and Foundation trusts the size.
            let text = String(decoding: FileHandle(forReadingAtPath: path)?.readDataToEndOfFile() ?? Data(), as: UTF8.self)
            return text.split(separator: "\n").dropFirst().compactMap { line in
                let fields = line.split(separator: " ")
                guard fields.count > 3, let local = fields[1].split(separator: ":").last, let remote = fields[2].split(separator: ":").last,
                    let localPort = Int(local, radix: 16), let remotePort = Int(remote, radix: 16), let state = Int(fields[3], radix: 16)
                else { return nil }
                return (localPort, remotePort, state)
            }
        }
    }

    /// Established connections whose server side is `port` (clients connected to it).
    public static func established(toPort port: Int) -> Int {
        rows().filter { $0.local == port && $0.state == 0x01 }.count
    }

    /// Whether something listens on `port`.
    public static func isListening(_ port: Int) -> Bool {
        rows().contains { $0.local == port && $0.state == 0x0A }
    }
}
