import Foundation

/// Debian's rclone serving a folder over WebDAV (`rclone serve webdav`) on 127.0.0.1: the
/// server people put in front of a disk or another cloud. Listings are not cached
/// (`--dir-cache-time 0s`), so a replaced file shows its new ETag at once.
public final class RcloneWebDAVServer {
    public let port: Int
    private let process = Process()
    private let directory = TemporaryDirectory("nimbus-rclone")

    public static var available: Bool { FileManager.default.isExecutableFile(atPath: "/usr/bin/rclone") }

    public init(root: String) throws {
        port = freePort()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/rclone")
        process.arguments = [
            "serve", "webdav", root, "--addr", "127.0.0.1:\(port)", "--dir-cache-time", "0s", "--config", directory.file("rclone.conf"),
        ]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        guard waitUntil({ (try? LineClientProbe.connect(port: self.port)) == true }) else {
            throw LineClient.Failure(description: "rclone did not start")
        }
    }

    deinit { stop() }

    public func stop() {
        guard process.isRunning else { return }
        process.terminate()
        process.waitUntilExit()
    }

    public var url: String { "http://127.0.0.1:\(port)/" }
}
