import Foundation
import Glibc
import NimbusHarness
import XCTest

/// nimbusd started as mpd is: the config search order, `pid_file` and `--kill`, detaching from a
/// terminal, systemd socket activation and a user's `$XDG_RUNTIME_DIR/mpd/socket`.
final class StartupTests: XCTestCase {
    private let nullOutput = "audio_output {\n    type \"null\"\n    name \"n\"\n}\n"

    /// A daemon's config with every file in `directory`, no web page, a null output.
    private func writeConfig(in directory: TemporaryDirectory, port: Int, extra: String = "") -> String {
        directory.write("nimbusd.conf", """
            music_directory "\(directory.path)"
            db_file "\(directory.path)/db"
            state_file "\(directory.path)/state"
            sticker_file "\(directory.path)/sticker.sql"
            cache_directory "\(directory.path)/cache"
            playlist_directory "\(directory.path)"
            log_file "\(directory.path)/log"
            port "\(port)"
            zeroconf_enabled "no"
            web {
                enabled "no"
            }
            \(extra)
            \(nullOutput)
            """)
    }

    /// `--check` names the file it read: each candidate in turn, the first present one winning.
    func testWithoutAnArgumentTheFirstFileFoundIsRead() throws {
        let home = TemporaryDirectory("nimbus-search")
        let environment = ["HOME": home.path, "XDG_CONFIG_HOME": home.path + "/xdg", "PATH": "/usr/bin:/bin"]
        func check(_ arguments: [String] = []) throws -> String {
            try runTool(ServerProcess.buildDirectory + "/nimbusd", ["--check"] + arguments, environment: environment)
        }
        let files = ["/.mpd/mpd.conf", "/.mpdconf", "/xdg/mpd/mpd.conf", "/xdg/nimbus/nimbusd.conf"]
        for file in files {
            try FileManager.default.createDirectory(atPath: home.path + (file as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            _ = home.write(String(file.dropFirst()), "music_directory \"\(home.path)\"\n" + nullOutput)
            XCTAssertEqual(try check().split(separator: "\n").last.map(String.init), "\(home.path + file): OK")
        }
        XCTAssertEqual(try check(["--no-config"]).split(separator: "\n").last.map(String.init), "defaults: OK")
    }

    func testPidFileAndKill() throws {
        let files = TemporaryDirectory("nimbus-pid")
        let pidPath = files.file("nimbus.pid")
        let daemon = try ServerProcess(.nimbus, config: "pid_file \"\(pidPath)\"")
        XCTAssertEqual(try String(contentsOfFile: pidPath, encoding: .utf8), "\(daemon.process.processIdentifier)\n")
        XCTAssertEqual(try runTool(ServerProcess.buildDirectory + "/nimbusd", ["--kill", daemon.configPath]), "")
        XCTAssertEqual(daemon.waitForExit(), 0)
        XCTAssertFalse(FileManager.default.fileExists(atPath: pidPath), "removed at a clean shutdown")
        XCTAssertThrowsError(try runTool(ServerProcess.buildDirectory + "/nimbusd", ["--kill", daemon.configPath])) { error in
            XCTAssertTrue("\(error)".contains("Unable to read the pid from file"), "\(error)")
        }
    }

    /// From a terminal (a pty from script(1)) nimbusd returns once it listens and keeps running
    /// detached, in its own session; `--kill` stops it.
    func testFromATerminalItDetachesOnceReady() throws {
        let directory = TemporaryDirectory("nimbus-detach")
        let port = freePort()
        let config = writeConfig(in: directory, port: port, extra: "pid_file \"\(directory.path)/pid\"\nbind_to_address \"127.0.0.1\"")
        // Not runTool: the daemon would inherit the test's output pipes (Foundation leaves them
        // open in the child) and hold them while it runs.
        let terminal = Process()
        terminal.executableURL = URL(fileURLWithPath: "/usr/bin/script")
        terminal.arguments = ["-qec", "\(ServerProcess.buildDirectory)/nimbusd \(config)", "/dev/null"]
        terminal.standardInput = FileHandle.nullDevice
        terminal.standardOutput = FileHandle.nullDevice
        terminal.standardError = FileHandle.nullDevice
        try terminal.run()
        terminal.waitUntilExit()
        XCTAssertEqual(terminal.terminationStatus, 0)
        // script(1) returned: the parent exited, and only after the daemon was listening.
        let (client, greeting) = try LineClient.connected(.tcp(host: "127.0.0.1", port: port))
        XCTAssertEqual(greeting, "OK MPD 0.24.0")
        let pid = try XCTUnwrap(Int32(String(contentsOfFile: directory.file("pid"), encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)))
        XCTAssertEqual(getsid(pid), pid, "the daemon leads its own session")
        XCTAssertEqual(try client.request("ping"), ["OK"])
        _ = try runTool(ServerProcess.buildDirectory + "/nimbusd", ["--kill", config])
        XCTAssertTrue(waitUntil { kill(pid, 0) != 0 })
    }

    /// A `nimbusd.socket` unit: systemd binds the TCP port and the Unix socket, nimbusd serves
    /// exactly those (its own `bind_to_address` is not bound), and a client waiting on the
    /// socket before the daemon ran gets its greeting.
    func testSystemdSocketActivation() throws {
        try XCTSkipUnless(FileManager.default.isExecutableFile(atPath: "/usr/bin/systemd-socket-activate"), "systemd-socket-activate is missing")
        let port = freePort(), unusedPort = freePort()
        let directory = TemporaryDirectory("nimbus-activated")
        let config = writeConfig(in: directory, port: unusedPort, extra: "bind_to_address \"127.0.0.1\"")
        let socket = directory.path + "/activated.sock"
        let activation = Process()
        activation.executableURL = URL(fileURLWithPath: "/usr/bin/systemd-socket-activate")
        activation.arguments = ["-l", "127.0.0.1:\(port)", "-l", socket, ServerProcess.buildDirectory + "/nimbusd", "--systemd", config]
        activation.standardError = FileHandle.nullDevice
        try activation.run()
        defer {
            activation.terminate()
            activation.waitUntilExit()
        }
        XCTAssertTrue(waitUntil { FileManager.default.fileExists(atPath: socket) })
        let (client, greeting) = try LineClient.connected(.tcp(host: "127.0.0.1", port: port))
        XCTAssertEqual(greeting, "OK MPD 0.24.0")
        XCTAssertEqual(try client.request("ping"), ["OK"])
        let (local, localGreeting) = try LineClient.connected(.unix(path: socket))
        XCTAssertEqual(localGreeting, "OK MPD 0.24.0")
        XCTAssertTrue(try local.request("config").contains { $0.hasPrefix("music_directory: ") }, "a Unix-socket client is local")
        XCTAssertNil(try? LineClient(.tcp(host: "127.0.0.1", port: unusedPort)), "bind_to_address is replaced by the passed sockets")
        let log = (try? String(contentsOfFile: directory.file("log"), encoding: .utf8)) ?? ""
        XCTAssertTrue(log.contains("ready on 127.0.0.1:\(port), \(socket);"), log)
    }

    /// A user's daemon without `bind_to_address` listens on `$XDG_RUNTIME_DIR/mpd/socket`
    /// (mode 0600), where libmpdclient looks first, as well as on TCP.
    func testAUsersDaemonListensOnItsRuntimeSocket() throws {
        try XCTSkipUnless(geteuid() == 0, "needs root to run the daemon as another user")
        let directory = TemporaryDirectory("nimbus-runtime")
        chmod(directory.path, 0o777)
        let port = freePort()
        let config = writeConfig(in: directory, port: port)
        let runtime = directory.path + "/run"
        try FileManager.default.createDirectory(atPath: runtime, withIntermediateDirectories: true)
        chown(runtime, 65534, 65534)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
        process.arguments = ["--reuid=65534", "--regid=65534", "--clear-groups", ServerProcess.buildDirectory + "/nimbusd", "--no-daemon", config]
        process.environment = ["HOME": directory.path, "XDG_RUNTIME_DIR": runtime, "PATH": "/usr/bin:/bin"]
        process.standardError = FileHandle.nullDevice
        try process.run()
        defer {
            process.terminate()
            process.waitUntilExit()
        }
        let socket = runtime + "/mpd/socket"
        XCTAssertTrue(waitUntil { (try? LineClient.connected(.tcp(host: "127.0.0.1", port: port))) != nil }, (try? String(contentsOfFile: directory.file("log"), encoding: .utf8)) ?? "")
        var info = stat()
        XCTAssertEqual(stat(socket, &info), 0, (try? String(contentsOfFile: directory.file("log"), encoding: .utf8)) ?? "")
        XCTAssertEqual(info.st_mode & 0o777, 0o600)
        XCTAssertEqual(info.st_uid, 65534)
        let (client, greeting) = try LineClient.connected(.unix(path: socket))
        XCTAssertEqual(greeting, "OK MPD 0.24.0")
        XCTAssertTrue(try client.request("config").contains("music_directory: \(directory.path)"))
    }
}
