import Foundation
import Glibc

/// Debian's nginx with the dav-ext module serving a folder over WebDAV on 127.0.0.1, with
/// Basic authentication, started for a test and stopped with it. Every request is logged with
/// the bytes sent, so tests can assert how much went over the network.
public final class WebDAVServer {
    public let port: Int
    public let root: String
    public let user = "listener"
    public let password = "s3cret-pass"
    private let directory: TemporaryDirectory
    private let process = Process()

    public static var available: Bool {
        FileManager.default.isExecutableFile(atPath: "/usr/sbin/nginx")
            && FileManager.default.fileExists(atPath: "/usr/lib/nginx/modules/ngx_http_dav_ext_module.so")
    }

    /// Serves `root`; `rate` limits each response to that many bytes per second.
    public init(root: String, authenticated: Bool = true, rate: Int? = nil) throws {
        self.root = root
        directory = TemporaryDirectory("nimbus-webdav")
        port = freePort()
        let htpasswd = directory.write("htpasswd", "\(user):{PLAIN}\(password)\n")
        let auth = authenticated ? "auth_basic \"music\";\n            auth_basic_user_file \(htpasswd);" : ""
        let config = """
            load_module /usr/lib/nginx/modules/ngx_http_dav_ext_module.so;
            \(geteuid() == 0 ? "user root;" : "")
            worker_processes 1;
            daemon off;
            error_log \(directory.path)/error.log;
            pid \(directory.path)/nginx.pid;
            events { worker_connections 256; }
            http {
                include /etc/nginx/mime.types;
                log_format bytes '$request_method $status $body_bytes_sent "$http_range" $uri';
                access_log \(directory.path)/access.log bytes;
                client_body_temp_path \(directory.path)/body;
                proxy_temp_path \(directory.path)/proxy;
                fastcgi_temp_path \(directory.path)/fastcgi;
                uwsgi_temp_path \(directory.path)/uwsgi;
                scgi_temp_path \(directory.path)/scgi;
                server {
                    listen 127.0.0.1:\(port);
                    location /dav/ {
                        alias \(root)/;
                        \(auth)
                        dav_methods PUT DELETE MKCOL COPY MOVE;
                        dav_ext_methods PROPFIND OPTIONS;
                        autoindex on;
                        \(rate.map { "limit_rate \($0);" } ?? "")
                    }
                }
            }
            """
        let path = directory.write("nginx.conf", config)
        process.executableURL = URL(fileURLWithPath: "/usr/sbin/nginx")
        process.arguments = ["-c", path, "-p", directory.path]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        guard waitUntil({ (try? LineClientProbe.connect(port: self.port)) == true }) else {
            throw LineClient.Failure(description: "nginx did not start: \(self.errorLog)")
        }
    }

    deinit { stop() }

    /// Stops nginx now; a test that hands the server's URL to threads calls it at its end, so
    /// the server lives exactly as long as the test.
    public func stop() {
        if process.isRunning {
            process.terminate()
            process.waitUntilExit()
        }
    }

    public var url: String { "http://127.0.0.1:\(port)/dav/" }

    /// A `cloud { }` block mounting this server as `name`, its password in a file of `secrets`.
    public func cloudBlock(name: String = "dav", secrets: TemporaryDirectory) -> String {
        """
        cloud {
            name "\(name)"
            type "webdav"
            url "\(url)"
            user "\(user)"
            password_file "\(secrets.write(name + ".password", password + "\n"))"
        }
        """
    }
    public var errorLog: String { (try? String(contentsOfFile: directory.file("error.log"), encoding: .utf8)) ?? "" }

    /// Bytes of file content sent so far (GET responses only).
    public var bytesSent: Int {
        let log = (try? String(contentsOfFile: directory.file("access.log"), encoding: .utf8)) ?? ""
        return log.split(separator: "\n").filter { $0.hasPrefix("GET ") }.reduce(0) { total, line in
            total + (Int(line.split(separator: " ")[2]) ?? 0)
        }
    }

    public var requests: [String] {
        ((try? String(contentsOfFile: directory.file("access.log"), encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
    }
}

/// Whether something listens on a local TCP port.
enum LineClientProbe {
    static func connect(port: Int) throws -> Bool {
        guard let fd = connectLoopback(port: port) else { return false }
        close(fd)
        return true
    }
}

/// A TCP socket connected to 127.0.0.1:`port`, or nil when nothing listens there; the caller
/// closes it. Tests and benchmarks that speak raw HTTP (a first byte timed, a hang-up) need the
/// bare descriptor.
public func connectLoopback(port: Int) -> Int32? {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { return nil }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = in_port_t(UInt16(port).bigEndian)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    let result = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
    }
    guard result == 0 else {
        close(fd)
        return nil
    }
    return fd
}
