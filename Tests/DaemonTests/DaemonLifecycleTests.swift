import Foundation
import Glibc
import NimbusHarness
import XCTest

/// nimbusd as a process: config handling, listeners, signals, kill.
final class DaemonLifecycleTests: XCTestCase {
    func testSIGTERMShutsDownCleanlyAndRemovesTheSocket() throws {
        let daemon = try ServerProcess(.nimbus)
        XCTAssertEqual(try daemon.connect().request("ping"), ["OK"])
        XCTAssertTrue(FileManager.default.fileExists(atPath: daemon.socketPath))
        XCTAssertEqual(daemon.stop(signal: SIGTERM), 0)
        XCTAssertFalse(FileManager.default.fileExists(atPath: daemon.socketPath))
        XCTAssertTrue(daemon.log.contains("shutting down (SIGTERM)"), daemon.log)
    }

    func testSIGINTShutsDownCleanly() throws {
        let daemon = try ServerProcess(.nimbus)
        XCTAssertEqual(daemon.stop(signal: SIGINT), 0)
    }

    func testKillShutsDownCleanly() throws {
        let daemon = try ServerProcess(.nimbus)
        let client = try daemon.connect()
        XCTAssertEqual(try client.sendAndReadUntilClosed("kill\n"), "")
        XCTAssertEqual(daemon.waitForExit(), 0)
        XCTAssertTrue(daemon.log.contains("shutting down (kill command)"), daemon.log)
    }

    func testKillNeedsAdmin() throws {
        let daemon = try ServerProcess(.nimbus, config: "password \"x@read\"\ndefault_permissions \"read\"")
        XCTAssertEqual(try daemon.connect().request("kill"), [#"ACK [4@0] {kill} you don't have permission for "kill""#])
        XCTAssertTrue(daemon.process.isRunning)
    }

    func testUnknownKeysWarnWithFileAndLineAndStillStart() throws {
        let daemon = try ServerProcess(.nimbus, config: "frobnicate \"yes\"")
        XCTAssertEqual(try daemon.connect().request("ping"), ["OK"])
        XCTAssertTrue(daemon.log.contains("\(daemon.configPath):\(daemon.configLine("frobnicate")): unknown setting 'frobnicate'; ignored"), daemon.log)
    }

    func testBrokenConfigExitsWithStatusOneAndFileLine() throws {
        let daemon = try ServerProcess(.nimbus, config: "port 6600", waitForReady: false)
        XCTAssertEqual(daemon.waitForExit(), 1)
        XCTAssertEqual(daemon.output, "nimbusd: \(daemon.configPath):\(daemon.configLine("port 6600")): '\"' expected\n")
    }

    func testMissingConfigFileIsAClearError() throws {
        let directory = TemporaryDirectory()
        let process = Process()
        process.executableURL = URL(fileURLWithPath: ServerProcess.buildDirectory + "/nimbusd")
        process.arguments = [directory.file("absent.conf")]
        let errors = Pipe()
        process.standardError = errors
        try process.run()
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 1)
        let message = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        XCTAssertEqual(message, "nimbusd: Failed to open '\(directory.file("absent.conf"))': No such file or directory\n")
    }

    func testUnbindablePortIsAnError() throws {
        let first = try ServerProcess(.nimbus)
        let second = try ServerProcess(.nimbus, config: "port \"\(first.port)\"", waitForReady: false)
        XCTAssertEqual(second.waitForExit(), 1)
        XCTAssertTrue(second.output.contains("Failed to bind"), second.output)
    }

    func testIPv6Loopback() throws {
        let daemon = try ServerProcess(.nimbus, config: "bind_to_address \"::1\"")
        let (client, greeting) = try LineClient.connected(.tcp(host: "::1", port: daemon.port))
        XCTAssertEqual(greeting, "OK MPD 0.24.0")
        XCTAssertEqual(try client.request("ping"), ["OK"])
    }

    /// `--no-config`: no file searched (this machine has Debian MPD's /etc/mpd.conf, which a
    /// bare `nimbusd` would read, as mpd does).
    func testWithoutAConfigItUsesSafeDefaults() throws {
        try XCTSkipIf((try? LineClient(.tcp(host: "127.0.0.1", port: 6600))) != nil, "port 6600 is in use here")
        let home = TemporaryDirectory("nimbus-home")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: ServerProcess.buildDirectory + "/nimbusd")
        process.environment = ["HOME": home.path, "PATH": "/usr/bin:/bin"]
        process.arguments = ["--no-config"]
        process.standardError = FileHandle.nullDevice
        try process.run()
        defer {
            kill(process.processIdentifier, SIGTERM)
            process.waitUntilExit()
        }
        XCTAssertTrue(waitUntil { (try? LineClient.connected(.tcp(host: "127.0.0.1", port: 6600))) != nil })
        XCTAssertTrue(FileManager.default.fileExists(atPath: home.path + "/.local/state/nimbus"))
        XCTAssertTrue(FileManager.default.fileExists(atPath: home.path + "/.cache/nimbus"))
    }
}

/// Zeroconf as phone clients see it: python3-zeroconf browsing `_mpd._tcp` inside a private
/// network namespace with only loopback (multicast never leaves the test).
final class ZeroconfTests: XCTestCase {
    func testTheServiceIsAnnouncedAndSaysGoodbye() throws {
        try XCTSkipUnless(geteuid() == 0, "a network namespace needs root")
        try XCTSkipUnless(
            FileManager.default.isExecutableFile(atPath: "/usr/bin/unshare") && FileManager.default.isExecutableFile(atPath: "/usr/sbin/ip")
                && (try? runTool("/usr/bin/python3", ["-c", "import zeroconf"])) != nil,
            "unshare, ip or python3-zeroconf is missing (scripts/install-deps)")
        let directory = TemporaryDirectory("nimbus-zeroconf")
        let port = freePort()
        let config = directory.write(
            "nimbus.conf",
            """
            music_directory "\(directory.path)"
            db_file "\(directory.path)/db"
            state_file "\(directory.path)/state"
            bind_to_address "any"
            port "\(port)"
            zeroconf_name "Nimbus test @ %h"
            audio_output {
                type "null"
                name "null"
            }
            """)
        let browse = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Scripts/zeroconf_browse.py").path
        let script = """
            ip link set lo up && ip link set lo multicast on && ip route add 224.0.0.0/4 dev lo || exit 3
            "$0" --no-daemon "$1" 2>"$2/stderr" &
            daemon=$!
            /usr/bin/python3 "$3" 15 > "$2/browse" 2>&1 &
            browser=$!
            for _ in $(seq 100); do grep -q '^found' "$2/browse" && break; sleep 0.1; done
            kill -TERM $daemon
            wait $browser
            wait $daemon
            cat "$2/browse"
            """
        let output = try runTool(
            "/usr/bin/unshare", ["-n", "/bin/sh", "-c", script, ServerProcess.buildDirectory + "/nimbusd", config, directory.path, browse])
        let host = try runTool("/bin/hostname", []).split(whereSeparator: { $0 == "." || $0.isWhitespace }).first.map(String.init) ?? ""
        let lines = output.split(separator: "\n").map(String.init)
        XCTAssertTrue(
            lines.contains("found Nimbus test @ \(host)._mpd._tcp.local. \(port) 127.0.0.1"), "\(output) \((try? String(contentsOfFile: directory.file("stderr"), encoding: .utf8)) ?? "")")
        XCTAssertTrue(lines.contains("removed Nimbus test @ \(host)._mpd._tcp.local."), "a goodbye at shutdown: \(output) \((try? String(contentsOfFile: directory.file("stderr"), encoding: .utf8)) ?? "")")
    }
}
