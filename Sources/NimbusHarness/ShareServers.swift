import Foundation
import Glibc

/// A server program of a test, on a loopback port of its own, stopped (by its PID) with the test.
public class ShareServerProcess {
    public let port: Int
    let directory: TemporaryDirectory
    private var pid: pid_t = 0

    init(label: String) {
        directory = TemporaryDirectory(label)
        port = freePort()
    }

    deinit { stop() }

    /// Through posix_spawn, not Foundation's Process: sshd and smbd close every inherited
    /// descriptor at start, which Process takes for the child's exit (and then blocks in
    /// waitpid, hanging every later Process of the test).
    func start(_ executable: String, _ arguments: [String], name: String) throws {
        let logPath = directory.write("server.log", "")
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, logPath, O_WRONLY | O_APPEND, 0)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var child: pid_t = 0
        let result = posix_spawn(&child, executable, &actions, nil, argv, environ)
        guard result == 0 else { throw LineClient.Failure(description: "\(name) could not start: \(String(cString: strerror(result)))") }
        pid = child
        guard waitUntil(timeout: 20, { (try? LineClientProbe.connect(port: self.port)) == true }) else {
            stop()
            throw LineClient.Failure(description: "\(name) did not start: \(log)")
        }
    }

    public var log: String { (try? String(contentsOfFile: directory.file("server.log"), encoding: .utf8)) ?? "" }

    /// Stops the server now (a test of a server that went away).
    public func stop() {
        guard pid > 0 else { return }
        kill(pid, SIGTERM)
        var status: Int32 = 0
        waitpid(pid, &status, 0)
        pid = 0
        _ = waitUntil(timeout: 5) { (try? LineClientProbe.connect(port: self.port)) != true }
    }

    /// Lets the server's own user (not root) read `path` and every folder above it.
    public static func openForReading(_ path: String) {
        _ = try? runTool("chmod", ["-R", "a+rX", path])
        var folder = (path as NSString).deletingLastPathComponent
        while folder != "/" && !folder.isEmpty {
            chmod(folder, 0o755)
            folder = (folder as NSString).deletingLastPathComponent
        }
    }
}

/// Samba's smbd serving `root` as the share `music` to one user with a password, SMB2 and
/// later only, its configuration, passwords and state in a private folder. The user is
/// `nobody` (Samba maps a share user onto a Unix account; this one exists everywhere), its
/// password in the private passdb only.
public final class SambaServer: ShareServerProcess {
    public let user = "nobody"
    public let password = "smb-secret-1"
    public let root: String
    /// Its smb.conf: every smbd process of this server has it on its command line.
    public var configPath: String { directory.file("smb.conf") }

    public static var available: Bool { FileManager.default.isExecutableFile(atPath: "/usr/sbin/smbd") && geteuid() == 0 }

    /// `minimumProtocol: "NT1"` lets SMB1 clients in too (curl's smb://, for `make bench`).
    public init(root: String, minimumProtocol: String = "SMB2") throws {
        self.root = root
        super.init(label: "nimbus-smbd")
        let base = directory.path
        for folder in ["private", "lock", "state", "cache", "pid", "ncalrpc"] {
            try FileManager.default.createDirectory(atPath: base + "/" + folder, withIntermediateDirectories: true)
        }
        Self.openForReading(root)
        let config = directory.write("smb.conf", """
            [global]
              smb ports = \(port)
              interfaces = lo
              bind interfaces only = yes
              server min protocol = \(minimumProtocol)
              \(minimumProtocol == "NT1" ? "ntlm auth = ntlmv1-permitted" : "")
              disable netbios = yes
              disable spoolss = yes
              load printers = no
              usershare path =
              private dir = \(base)/private
              lock directory = \(base)/lock
              state directory = \(base)/state
              cache directory = \(base)/cache
              pid directory = \(base)/pid
              ncalrpc dir = \(base)/ncalrpc
              log file = \(base)/smbd.log
              passdb backend = tdbsam
              map to guest = never
              unix charset = UTF-8
            [music]
              path = \(root)
              read only = yes
              valid users = \(user)
            """)
        try runTool("/usr/bin/pdbedit", ["-a", "-t", "-u", user, "--configfile=" + config], input: Data("\(password)\n\(password)\n".utf8))
        // Not --no-process-group: smbd signals its whole process group when it stops.
        try start("/usr/sbin/smbd", ["--foreground", "--debug-stdout", "--configfile=" + config], name: "smbd")
    }

    public func url(_ path: String = "", password: String? = nil) -> String {
        "smb://\(user)\(password.map { ":" + $0 } ?? "")@127.0.0.1:\(port)/music\(path)"
    }
}

/// OpenSSH's sshd with a host key of its own, serving SFTP only (`internal-sftp`) to one test
/// user (`nimbustest`, created if missing) by password and by key.
public final class SSHServer: ShareServerProcess {
    public static let user = "nimbustest"
    public let password = "sftp-secret-2"
    public private(set) var clientKey = ""
    /// `SHA256:…` as `ssh-keygen -lf` prints it.
    public private(set) var fingerprint = ""

    public static var available: Bool { FileManager.default.isExecutableFile(atPath: "/usr/sbin/sshd") && geteuid() == 0 }

    public init() throws {
        super.init(label: "nimbus-sshd")
        if (try? runTool("/usr/bin/id", [Self.user])) == nil {
            try runTool("/usr/sbin/useradd", ["-M", "-s", "/bin/sh", "-d", "/nonexistent", Self.user])
        }
        try runTool("/usr/sbin/chpasswd", [], input: Data("\(Self.user):\(password)\n".utf8))
        try? FileManager.default.createDirectory(atPath: "/run/sshd", withIntermediateDirectories: true)
        let base = directory.path
        try runTool("/usr/bin/ssh-keygen", ["-q", "-t", "ed25519", "-N", "", "-f", base + "/host_key"])
        try runTool("/usr/bin/ssh-keygen", ["-q", "-t", "ed25519", "-N", "", "-f", base + "/client_key"])
        clientKey = base + "/client_key"
        try FileManager.default.copyItem(atPath: base + "/client_key.pub", toPath: base + "/authorized_keys")
        let printed = try runTool("/usr/bin/ssh-keygen", ["-lf", base + "/host_key.pub"])
        fingerprint = String(printed.split(separator: " ").first { $0.hasPrefix("SHA256:") } ?? "")
        Self.openForReading(base + "/authorized_keys")
        let config = directory.write("sshd_config", """
            ListenAddress 127.0.0.1
            HostKey \(base)/host_key
            PidFile \(base)/sshd.pid
            UsePAM no
            PasswordAuthentication yes
            KbdInteractiveAuthentication no
            PubkeyAuthentication yes
            AuthorizedKeysFile \(base)/authorized_keys
            StrictModes no
            AllowUsers \(Self.user)
            Subsystem sftp internal-sftp
            ForceCommand internal-sftp
            """)
        try start("/usr/sbin/sshd", ["-D", "-e", "-f", config, "-p", String(port)], name: "sshd")
    }

    /// `root` made readable by the test user.
    public func url(_ root: String, password: String? = nil) -> String {
        Self.openForReading(root)
        return "sftp://\(Self.user)\(password.map { ":" + $0 } ?? "")@127.0.0.1:\(port)\(root)"
    }
}

/// pyftpdlib (Debian's python3-pyftpdlib) serving `root` to one user; `machineListing: false`
/// takes `MLSD` away, as older servers lack it.
public final class FTPServer: ShareServerProcess {
    public let user = "ftpuser"
    public let password = "ftp-secret-3"

    public static var available: Bool {
        FileManager.default.fileExists(atPath: "/usr/lib/python3/dist-packages/pyftpdlib/__init__.py")
    }

    public init(root: String, machineListing: Bool = true) throws {
        super.init(label: "nimbus-ftpd")
        let script = directory.write("ftpd.py", """
            import sys
            from pyftpdlib.authorizers import DummyAuthorizer
            from pyftpdlib.handlers import FTPHandler
            from pyftpdlib.servers import FTPServer
            authorizer = DummyAuthorizer()
            authorizer.add_user(sys.argv[3], sys.argv[4], sys.argv[2], perm="elr")
            class Handler(FTPHandler):
                pass
            Handler.authorizer = authorizer
            Handler.encoding = "utf-8"
            Handler.unicode_errors = "surrogateescape"
            if sys.argv[5] == "no-mlsd":
                Handler.proto_cmds = {k: v for k, v in FTPHandler.proto_cmds.items() if k not in ("MLSD", "MLST")}
            server = FTPServer(("127.0.0.1", int(sys.argv[1])), Handler)
            server.serve_forever()
            """)
        try start("/usr/bin/python3", [script, String(port), root, user, password, machineListing ? "mlsd" : "no-mlsd"], name: "pyftpdlib")
    }

    public func url(_ path: String = "/", password: String? = nil) -> String {
        "ftp://\(user)\(password.map { ":" + $0 } ?? "")@127.0.0.1:\(port)\(path)"
    }
}
