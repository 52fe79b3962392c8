import Foundation
import NimbusHarness
import XCTest

/// Real clients from Debian against nimbusd: mpc (libmpdclient) and python3-mpd.
final class ClientCompatibilityTests: XCTestCase {
    @discardableResult
    private func mpc(_ daemon: ServerProcess, _ arguments: [String]) throws -> String {
        try runTool("mpc", ["-h", "127.0.0.1", "-p", String(daemon.port)] + arguments)
    }

    func testMpcVersionAndStats() throws {
        try XCTSkipUnless(FileManager.default.fileExists(atPath: "/usr/bin/mpc"), "mpc not installed")
        let daemon = try ServerProcess(.nimbus)
        XCTAssertEqual(try mpc(daemon, ["version"]), "mpd version: 0.24.0\n")
        let stats = try mpc(daemon, ["stats"])
        XCTAssertTrue(stats.contains("Artists:      0"), stats)
        XCTAssertTrue(stats.contains("Uptime:"), stats)
    }

    func testMpcMessagingAndIdle() throws {
        try XCTSkipUnless(FileManager.default.fileExists(atPath: "/usr/bin/mpc"), "mpc not installed")
        let daemon = try ServerProcess(.nimbus)
        let waiter = Process()
        waiter.executableURL = URL(fileURLWithPath: "/usr/bin/mpc")
        waiter.arguments = ["-h", "127.0.0.1", "-p", String(daemon.port), "waitmessage", "ratings"]
        let output = Pipe()
        waiter.standardOutput = output
        try waiter.run()
        XCTAssertTrue(waitUntil { (try? self.mpc(daemon, ["channels"])) == "ratings\n" })
        try mpc(daemon, ["sendmessage", "ratings", "five stars"])
        waiter.waitUntilExit()
        XCTAssertEqual(waiter.terminationStatus, 0)
        XCTAssertEqual(String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self), "five stars\n")

        let idler = Process()
        idler.executableURL = URL(fileURLWithPath: "/usr/bin/mpc")
        idler.arguments = ["-h", "127.0.0.1", "-p", String(daemon.port), "idle", "subscription"]
        let idleOutput = Pipe()
        idler.standardOutput = idleOutput
        try idler.run()
        // The subscription event fires once mpc's own idle is registered; repeat until it is.
        let client = try daemon.connect()
        var channel = 0
        XCTAssertTrue(waitUntil {
            channel += 1
            _ = try? client.request("subscribe c\(channel)")
            return !idler.isRunning
        })
        XCTAssertEqual(String(decoding: idleOutput.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self), "subscription\n")
    }

    func testPythonMPD() throws {
        try XCTSkipUnless(FileManager.default.fileExists(atPath: "/usr/bin/python3"), "python3 not installed")
        let daemon = try ServerProcess(.nimbus, config: "password \"pw@read,add,control,admin\"\ndefault_permissions \"read\"")
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Scripts/python_mpd_client.py").path
        let output = try runTool("/usr/bin/python3", [script, String(daemon.port)])
        XCTAssertTrue(output.hasSuffix("all checks passed\n"), output)
    }

    /// Ten-second ramps (long enough to seek in) and a daemon with a software-mixed null output.
    private func playbackDaemon() throws -> ServerProcess {
        let music = TemporaryDirectory("nimbus-clients")
        for name in ["one", "two", "three"] {
            try AudioFixtures.writeRampWAV(to: music.file("\(name).wav"), frames: 441_000)
        }
        let config = "audio_output {\n    type \"null\"\n    name \"speaker\"\n    mixer_type \"software\"\n}"
        let daemon = try ServerProcess(.nimbus, config: config, musicDirectory: music.path, nullOutput: false)
        try daemon.waitForDatabase(songs: 3)
        musicDirectories.append(music)
        return daemon
    }

    private var musicDirectories: [TemporaryDirectory] = []

    func testMpcDrivesPlayback() throws {
        try XCTSkipUnless(FileManager.default.fileExists(atPath: "/usr/bin/mpc"), "mpc not installed")
        let daemon = try playbackDaemon()
        try mpc(daemon, ["add", "one.wav"])
        try mpc(daemon, ["add", "two.wav"])
        XCTAssertEqual(try mpc(daemon, ["playlist"]), "one.wav\ntwo.wav\n")
        let playing = try mpc(daemon, ["play"])
        XCTAssertTrue(playing.contains("[playing] #1/2"), playing)
        let paused = try mpc(daemon, ["pause"])
        XCTAssertTrue(paused.contains("[paused]  #1/2"), paused)
        let seeked = try mpc(daemon, ["seek", "0:05"])
        XCTAssertTrue(seeked.contains("0:05/0:10"), seeked)
        let next = try mpc(daemon, ["next"])
        XCTAssertTrue(next.contains("#2/2"), next)
        XCTAssertTrue(try mpc(daemon, ["current"]).hasPrefix("two.wav"))
        XCTAssertTrue(try mpc(daemon, ["volume", "30"]).contains("volume: 30%"))
        XCTAssertTrue(try mpc(daemon, ["volume", "+5"]).contains("volume: 35%"))
        XCTAssertEqual(try mpc(daemon, ["repeat", "on"]).contains("repeat: on"), true)
        XCTAssertTrue(try mpc(daemon, ["outputs"]).contains("Output 1 (speaker) is enabled"))
        try mpc(daemon, ["disable", "1"])
        XCTAssertTrue(try mpc(daemon, ["outputs"]).contains("Output 1 (speaker) is disabled"))
        try mpc(daemon, ["save", "mine"])
        XCTAssertEqual(try mpc(daemon, ["lsplaylists"]), "mine\n")
        try mpc(daemon, ["stop"])
        XCTAssertFalse(try mpc(daemon, []).contains("[playing]"))
    }

    func testPythonMPDDrivesPlayback() throws {
        try XCTSkipUnless(FileManager.default.fileExists(atPath: "/usr/bin/python3"), "python3 not installed")
        let daemon = try playbackDaemon()
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Scripts/python_mpd_playback.py").path
        let output = try runTool("/usr/bin/python3", [script, String(daemon.port)])
        XCTAssertTrue(output.hasSuffix("all checks passed\n"), output)
    }
}
