import Foundation
import NimbusHarness
import XCTest

/// The state file: queue, current song and position, options, volume and outputs survive a
/// clean restart and a kill -9 during playback.
final class StateFileTests: XCTestCase {
    private static let outputs = """
        audio_output {
            type "null"
            name "quiet"
            mixer_type "software"
        }
        audio_output {
            type "null"
            name "spare"
        }
        state_file_interval "1"
        """

    private func music() throws -> TemporaryDirectory {
        let music = TemporaryDirectory("nimbus-state")
        for (index, seconds) in [2, 10, 10, 3].enumerated() {
            try AudioFixtures.writeRampWAV(to: music.file("song\(index).wav"), frames: seconds * 44_100)
        }
        return music
    }

    private func value(_ key: String, _ lines: [String]) -> String? {
        lines.first { $0.hasPrefix(key + ": ") }.map { String($0.dropFirst(key.count + 2)) }
    }

    /// playlistinfo without the ids, which a restore hands out afresh (as MPD does).
    private func queue(_ client: LineClient) throws -> [String] {
        try client.request("playlistinfo").filter { !$0.hasPrefix("Id: ") }
    }

    func testEverythingSurvivesACleanRestart() throws {
        let music = try music()
        let daemon = try ServerProcess(.nimbus, config: Self.outputs, musicDirectory: music.path)
        try daemon.waitForDatabase(songs: 4)
        var client = try daemon.connect()
        for command in [
            "add song0.wav", "add song1.wav", "add song2.wav", "add http://127.0.0.1:9/radio.ogg", "add song3.wav",
            "prio 7 4", "rangeid 3 0.5:1.5", "addtagid 4 title Radio", "repeat 1", "consume 1", "crossfade 2",
            "mixrampdb -12", "replay_gain_mode track", "setvol 42", "disableoutput 2", "play 1", "seekcur 4",
            "pause 1",
        ] {
            XCTAssertEqual(try client.request(command), ["OK"], command)
        }
        let before = try queue(client)
        let outputsBefore = try client.request("outputs")
        XCTAssertEqual(daemon.stop(), 0)
        try daemon.restart()
        client = try daemon.connect()
        let status = try client.request("status")
        XCTAssertEqual(value("state", status), "pause")
        XCTAssertEqual(value("song", status), "1")
        XCTAssertEqual(Double(value("elapsed", status) ?? "") ?? 0, 4, accuracy: 0.3)
        XCTAssertEqual(value("volume", status), "42")
        XCTAssertEqual(value("repeat", status), "1")
        XCTAssertEqual(value("consume", status), "1")
        XCTAssertEqual(value("xfade", status), "2")
        XCTAssertEqual(value("mixrampdb", status), "-12")
        XCTAssertEqual(try client.request("replay_gain_status"), ["replay_gain_mode: track", "OK"])
        XCTAssertEqual(try client.request("outputs"), outputsBefore)
        XCTAssertEqual(try queue(client), before)
        // Playback goes on from the restored position.
        XCTAssertEqual(try client.request("pause 0"), ["OK"])
        XCTAssertTrue(waitUntil(timeout: 10) { Double(value("elapsed", (try? client.request("status")) ?? []) ?? "") ?? 0 > 4.2 })
    }

    func testPlaybackResumesAfterKillNine() throws {
        let music = try music()
        let daemon = try ServerProcess(.nimbus, config: Self.outputs, musicDirectory: music.path)
        try daemon.waitForDatabase(songs: 4)
        var client = try daemon.connect()
        for command in ["add song1.wav", "add song2.wav", "random 0", "play 0"] {
            XCTAssertEqual(try client.request(command), ["OK"], command)
        }
        Thread.sleep(forTimeInterval: 2.6)
        daemon.stop(signal: SIGKILL)
        try daemon.restart()
        client = try daemon.connect()
        let status = try client.request("status")
        XCTAssertEqual(value("state", status), "play")
        XCTAssertEqual(value("song", status), "0")
        let elapsed = Double(value("elapsed", status) ?? "") ?? 0
        XCTAssertGreaterThanOrEqual(elapsed, 1.0, "saved at most a second before the kill")
        XCTAssertLessThan(elapsed, 4.0)
        XCTAssertEqual(value("playlistlength", status), "2")
        let files = try FileManager.default.contentsOfDirectory(atPath: daemon.directory.path)
        XCTAssertFalse(files.contains { $0.hasPrefix("state.tmp") }, "no temporary state file left: \(files)")
    }

    func testRestorePausedKeepsARestoredSongPaused() throws {
        let music = try music()
        let daemon = try ServerProcess(
            .nimbus, config: Self.outputs + "\nrestore_paused \"yes\"", musicDirectory: music.path)
        try daemon.waitForDatabase(songs: 4)
        var client = try daemon.connect()
        XCTAssertEqual(try client.request("add song1.wav"), ["OK"])
        XCTAssertEqual(try client.request("seek 0 3"), ["OK"])
        XCTAssertEqual(daemon.stop(), 0)
        try daemon.restart()
        client = try daemon.connect()
        let status = try client.request("status")
        XCTAssertEqual(value("state", status), "pause")
        XCTAssertEqual(Double(value("elapsed", status) ?? "") ?? 0, 3, accuracy: 0.3)
    }

    /// A state file written by MPD 0.23 restores here: the formats are the same.
    func testAStateFileWrittenByMPDIsRestored() throws {
        try XCTSkipUnless(ServerProcess.mpdAvailable, "Debian's mpd is not installed (scripts/install-deps)")
        let music = try music()
        let reference = try ServerProcess(.mpd, config: Self.outputs, musicDirectory: music.path)
        try reference.waitForDatabase(songs: 4)
        let mpd = try reference.connect()
        for command in ["add song0.wav", "add song3.wav", "add http://127.0.0.1:9/radio.ogg", "prio 9 1", "repeat 1", "single 1", "play 1", "stop"] {
            XCTAssertEqual(try mpd.request(command), ["OK"], command)
        }
        let expected = try queue(mpd)
        XCTAssertEqual(reference.stop(), 0)
        let nimbus = try ServerProcess(
            .nimbus, config: Self.outputs + "\nstate_file \"\(reference.directory.file("state"))\"", musicDirectory: music.path)
        try nimbus.waitForDatabase(songs: 4)
        let client = try nimbus.connect()
        XCTAssertEqual(
            DifferentialHarness.as023(try queue(client)).filter { !$0.hasPrefix("Last-Modified") },
            expected.filter { !$0.hasPrefix("Last-Modified") })
        let status = try client.request("status")
        XCTAssertEqual(value("repeat", status), "1")
        XCTAssertEqual(value("single", status), "1")
        XCTAssertEqual(value("song", status), "1")
    }

    func testAGarbageStateFileIsIgnored() throws {
        let music = try music()
        let daemon = try ServerProcess(.nimbus, config: Self.outputs, waitForReady: false, musicDirectory: music.path)
        daemon.stop()
        _ = daemon.directory.write("state", "\u{0}\u{1}garbage\nplaylist_begin\nnot a line\n0:\n99:song1.wav\n")
        try daemon.restart()
        try daemon.waitForDatabase(songs: 4)
        let client = try daemon.connect()
        XCTAssertEqual(try client.request("playlist"), ["0:file: song1.wav", "OK"])
        XCTAssertEqual(try client.request("ping"), ["OK"])
    }
}
