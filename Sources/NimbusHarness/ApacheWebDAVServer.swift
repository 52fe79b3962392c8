import Foundation
import Glibc

/// Debian's Apache with mod_dav serving a folder over WebDAV on 127.0.0.1 behind Digest
/// authentication (which nginx cannot do): the second real WebDAV server the cloud tests meet,
/// started for a test and stopped with it.
public final class ApacheWebDAVServer {
    public let port: Int
    public let user = "listener"
    public let password = "digest-s3cret"
    private let directory: TemporaryDirectory
    private let process = Process()

    public static var available: Bool {
        FileManager.default.isExecutableFile(atPath: "/usr/sbin/apache2")
            && FileManager.default.fileExists(atPath: modules + "/mod_auth_digest.so")
            && FileManager.default.fileExists(atPath: modules + "/mod_dav_fs.so")
    }

    private static let modules = "/usr/lib/apache2/modules"

    public init(root: String) throws {
        directory = TemporaryDirectory("nimbus-apache")
        port = freePort()
        let realm = "music"
        let hash = try runTool("/usr/bin/md5sum", [], input: Data("\(user):\(realm):\(password)".utf8)).prefix(32)
        let digestFile = directory.write("digest", "\(user):\(realm):\(hash)\n")
        try FileManager.default.createDirectory(atPath: directory.file("lock"), withIntermediateDirectories: true)
        // Apache's workers run as www-data when started by root: they must reach the files.
        let asRoot = geteuid() == 0
        if asRoot {
            _ = try runTool("/bin/chmod", ["-R", "a+rX", root, directory.path])
            _ = try runTool("/bin/chown", ["www-data", directory.file("lock")])
        }
        let modules = [
            "mpm_event", "authn_core", "authn_file", "auth_digest", "authz_core", "authz_user", "alias", "mime", "dav",
            "dav_fs",
        ]
        let config = """
            ServerRoot "\(directory.path)"
            ServerName 127.0.0.1
            DefaultRuntimeDir "\(directory.path)"
            PidFile "\(directory.path)/httpd.pid"
            Listen 127.0.0.1:\(port)
            \(modules.map { "LoadModule \($0)_module \(Self.modules)/mod_\($0).so" }.joined(separator: "\n"))
            \(asRoot ? "User www-data\nGroup www-data" : "")
            ErrorLog "\(directory.path)/error.log"
            LogFormat "%m %>s %B \\"%{Range}i\\" %U" bytes
            CustomLog "\(directory.path)/access.log" bytes
            TypesConfig /etc/mime.types
            DavLockDB "\(directory.path)/lock/DavLock"
            Alias /dav/ "\(root)/"
            <Directory "\(root)">
                Dav On
                AuthType Digest
                AuthName "\(realm)"
                AuthDigestProvider file
                AuthUserFile "\(digestFile)"
                Require valid-user
            </Directory>
            """
        let path = directory.write("httpd.conf", config)
        process.executableURL = URL(fileURLWithPath: "/usr/sbin/apache2")
        process.arguments = ["-f", path, "-DFOREGROUND"]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle(forWritingAtPath: directory.write("stderr", ""))
        try process.run()
        guard waitUntil({ (try? LineClientProbe.connect(port: self.port)) == true || !self.process.isRunning }), process.isRunning
        else {
            throw LineClient.Failure(description: "apache did not start: \(log("stderr")) \(log("error.log"))")
        }
    }

    deinit {
        if process.isRunning {
            process.terminate()
            process.waitUntilExit()
        }
    }

    public var url: String { "http://127.0.0.1:\(port)/dav/" }

    private func log(_ name: String) -> String {
        (try? String(contentsOfFile: directory.file(name), encoding: .utf8)) ?? ""
    }

    /// One line per request: method, status, body bytes, Range header, path.
    public var requests: [String] { log("access.log").split(separator: "\n").map(String.init) }
}
