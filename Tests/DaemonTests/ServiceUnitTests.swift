import Foundation
import NimbusHarness
import XCTest

/// The systemd unit as shipped: installed by scripts/install, accepted by `systemd-analyze
/// verify` and hardened (`systemd-analyze security` at most 5.0). systemd is not PID 1 on the
/// test machines, so the unit is checked, not started; README says so.
final class ServiceUnitTests: XCTestCase {
    private func install(into root: TemporaryDirectory) throws {
        let environment = [
            "PREFIX": root.file("usr"), "SYSCONFDIR": root.file("etc"), "UNITDIR": root.file("units"),
            "BUILD": ServerProcess.buildDirectory,
        ]
        try runTool("/bin/sh", [Fixtures.repositoryRoot + "/scripts/install"], environment: environment)
    }

    func testInstallPutsTheBinaryConfigAndUnitInPlace() throws {
        let root = TemporaryDirectory("nimbus-install")
        try install(into: root)
        for path in [
            "usr/bin/nimbusd", "usr/bin/nimbus", "usr/share/doc/nimbus/README.md", "usr/share/doc/nimbus/docs/configuration.md",
            "usr/share/man/man1/nimbusd.1", "usr/share/man/man1/nimbus.1", "etc/nimbus/nimbusd.conf", "units/nimbusd.service",
            "units/nimbusd.socket",
        ] {
            XCTAssertTrue(FileManager.default.fileExists(atPath: root.file(path)), path)
        }
        // The man pages are the programs' --help: the options and the subcommands are there.
        let daemonPage = try String(contentsOfFile: root.file("usr/share/man/man1/nimbusd.1"), encoding: .utf8)
        XCTAssertTrue(daemonPage.contains("\\-\\-check"), daemonPage)
        let cliPage = try String(contentsOfFile: root.file("usr/share/man/man1/nimbus.1"), encoding: .utf8)
        XCTAssertTrue(cliPage.contains("authorize ACCOUNT") && cliPage.contains("podcasts"), cliPage)
        let unit = try String(contentsOfFile: root.file("units/nimbusd.service"), encoding: .utf8)
        XCTAssertTrue(unit.contains("ExecStart=\(root.file("usr/bin/nimbusd")) --no-daemon \(root.file("etc/nimbus/nimbusd.conf"))"), unit)
        // A config the user changed survives a second install.
        _ = root.write("etc/nimbus/nimbusd.conf", "# mine\n")
        try install(into: root)
        XCTAssertEqual(try String(contentsOfFile: root.file("etc/nimbus/nimbusd.conf"), encoding: .utf8), "# mine\n")
    }

    /// The installed config's paths are the unit's directories, and nimbusd reads it.
    func testTheSystemConfigMatchesTheUnit() throws {
        let config = try String(contentsOfFile: Fixtures.repositoryRoot + "/conf/nimbusd.conf", encoding: .utf8)
        let unit = try String(contentsOfFile: Fixtures.repositoryRoot + "/conf/nimbusd.service", encoding: .utf8)
        for (key, directory) in [("StateDirectory", "/var/lib/"), ("CacheDirectory", "/var/cache/"), ("LogsDirectory", "/var/log/"), ("RuntimeDirectory", "/run/")] {
            let name = try XCTUnwrap(unit.split(separator: "\n").first { $0.hasPrefix(key + "=") }).dropFirst(key.count + 1)
            let place = "\"\(directory)\(name)"
            XCTAssertTrue(config.contains(place + "/") || config.contains(place + "\""), "\(key)=\(name) is not where the config writes")
        }
        XCTAssertFalse(config.contains("/tmp/"), "PrivateTmp hides /tmp from other services")
        let check = try Process.run(URL(fileURLWithPath: ServerProcess.buildDirectory + "/nimbusd"), arguments: ["--check", Fixtures.repositoryRoot + "/conf/nimbusd.conf"])
        check.waitUntilExit()
        XCTAssertEqual(check.terminationStatus, 0, "nimbusd --check refuses the shipped config")
    }

    /// `--version` lists every plugin as MPD's does, from the registries themselves.
    func testTheVersionListsEveryPlugin() throws {
        let text = try runTool(ServerProcess.buildDirectory + "/nimbusd", ["--version"])
        for expected in [
            "Decoders plugins:", "[mpcdec] mpc", "[oggflac] ogg oga", "Output plugins:\n alsa null fifo pipe recorder httpd",
            "Encoder plugins:\n wave flac vorbis opus lame aac", "Playlist plugins:\n extm3u m3u pls xspf cue", "Storage plugins:\n local webdav",
        ] {
            XCTAssertTrue(text.contains(expected), "\(expected) in\n\(text)")
        }
    }

    func testTheUnitVerifiesAndIsHardened() throws {
        try XCTSkipUnless(FileManager.default.isExecutableFile(atPath: "/usr/bin/systemd-analyze"), "systemd-analyze is not installed")
        let root = TemporaryDirectory("nimbus-install")
        try install(into: root)
        let unit = root.file("units/nimbusd.service")
        let verify = try runTool("/usr/bin/systemd-analyze", ["verify", unit], includingErrors: true)
        XCTAssertFalse(verify.contains("nimbusd.service:"), "systemd-analyze verify complains:\n\(verify)")
        let socketVerify = try runTool("/usr/bin/systemd-analyze", ["verify", root.file("units/nimbusd.socket")], includingErrors: true)
        XCTAssertFalse(socketVerify.contains("nimbusd.socket:"), "systemd-analyze verify complains:\n\(socketVerify)")
        let security = try runTool("/usr/bin/systemd-analyze", ["security", "--offline=true", unit], includingErrors: true)
        let line = try XCTUnwrap(security.split(separator: "\n").first { $0.contains("Overall exposure level") }, security)
        let score = try XCTUnwrap(line.split(separator: " ").compactMap { Double($0) }.first, String(line))
        XCTAssertLessThanOrEqual(score, 5.0, String(line))
    }

    /// Started as root with `user`, the daemon binds, then runs as that user.
    func testTheUserSettingDropsRootAfterBinding() throws {
        try XCTSkipUnless(getuid() == 0, "needs root")
        let directory = TemporaryDirectory("nimbus-user")
        chmod(directory.path, 0o777)
        let daemon = try ServerProcess(.nimbus, config: "user \"nobody\"", musicDirectory: directory.path)
        let status = try String(contentsOfFile: "/proc/\(daemon.process.processIdentifier)/status", encoding: .utf8)
        let uid = status.split(separator: "\n").first { $0.hasPrefix("Uid:") }?.split(separator: "\t").dropFirst().first
        XCTAssertEqual(uid.map(String.init), String(getpwnam("nobody")!.pointee.pw_uid), status)
        XCTAssertEqual(try daemon.connect().request("ping"), ["OK"])
    }
}
