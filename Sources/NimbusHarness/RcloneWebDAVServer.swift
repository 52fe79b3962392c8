import Foundation

/// Debian's rclone serving a folder over WebDAV (`rclone serve webdav`) on 127.0.0.1: the
/// server people put in front of a disk or another cloud. Listings are not cached
/// (`--dir-cache-time 0s`), so a replaced file shows its new ETag at once.
public final class RcloneWebDAVServer {
    public let port: Int
    private let process = Process()
    private let directory = TemporaryDirectory("nimbus-rclone")

    public static var available: Bool { FileManager.default.isExecutableFile(atPath: "/usr/bin/rclone") }

    /// The path the share is served under (`--baseurl`, Nextcloud's `/remote.php/dav/files/USER`).
    public let basePath: String

    /// `login`: a user and password the server asks for (Basic); `basePath`: where it serves.
    public init(root: String, login: (user: String, password: String)? = nil, basePath: String = "") throws {
        port = freePort()
        self.basePath = basePath
        process.executableURL = URL(fileURLWithPath: "/usr/bin/rclone")
        process.arguments = [
            "serve", "webdav", root, "--addr", "127.0.0.1:\(port)", "--dir-cache-time", "0s", "--config", directory.file("rclone.conf"),
        ] + (login.map { ["--user", $0.user, "--pass", $0.password] } ?? []) + (basePath.isEmpty ? [] : ["--baseurl", basePath])
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

    public var url: String { "http://127.0.0.1:\(port)\(basePath)/" }
    /// The server's address without the base path (what Nextcloud calls its `server`).
    public var server: String { "http://127.0.0.1:\(port)" }
}
