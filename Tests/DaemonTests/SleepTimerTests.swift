import Foundation
import NimbusHarness
import XCTest

/// The sleep timer through the protocol, heard through ALSA's `file` plugin: after the set
/// time the sound fades to silence over `sleep_fade`, playback pauses, and the level comes
/// back; `end` holds the next song paused; mpdscheduler's channel message sets it too.
final class SleepTimerTests: XCTestCase {
    private var daemons: [ServerProcess] = []

    override func tearDown() {
        daemons.removeAll()
        super.tearDown()
    }

    /// `capture`: an ALSA capture beside the null output (which keeps real time).
    private func start(_ music: TemporaryDirectory, songs: Int, capture: Bool = true) throws -> (ServerProcess, ALSACapture, LineClient) {
        let alsa = ALSACapture(in: music)
        let daemon = try ServerProcess(
            .nimbus, config: (capture ? ALSACapture.outputBlock() : "") + "\nsleep_fade \"2\"", musicDirectory: music.path,
            environment: alsa.environment)
        try daemon.waitForDatabase(songs: songs)
        daemons.append(daemon)
        return (daemon, alsa, try daemon.connect())
    }

    private func field(_ name: String, _ lines: [String]) -> String? {
        lines.first { $0.hasPrefix(name + ": ") }.map { String($0.dropFirst(name.count + 2)) }
    }

    func testTheSoundFadesThenPlaybackPausesWithTheLevelRestored() throws {
        let music = TemporaryDirectory("nimbus-sleep")
        try AudioFixtures.writeSineWAV(to: music.file("sine.wav"), frames: 44_100 * 30, frequency: 1000)
        let (_, capture, client) = try start(music, songs: 1)
        XCTAssertEqual(try client.request("add sine.wav"), ["OK"])
        XCTAssertEqual(try client.request("play"), ["OK"])
        XCTAssertTrue(client.waitForStatus("state: play"))
        XCTAssertEqual(try client.request("sleeptimer 2"), ["OK"])
        let left = Int(field("sleeptimer", try client.request("status")) ?? "") ?? -1
        XCTAssertTrue((1...2).contains(left), "status counts down: \(left)")
        XCTAssertTrue(client.waitForStatus("state: pause", timeout: 15), "paused after two seconds and a two-second fade")
        let status = try client.request("status")
        XCTAssertNil(field("sleeptimer", status), "spent")
        XCTAssertEqual(field("volume", status), "100", "the volume clients see never moved")

        // Peaks of each tenth of a second heard: full, then falling to silence over ~2 s.
        let heard = AudioFixtures.leftChannel(capture.bytes)
        let peaks = stride(from: 0, to: heard.count - 4410, by: 4410).map { start in
            heard[start..<start + 4410].map { abs(Int($0)) }.max() ?? 0
        }
        guard let fadeStart = peaks.lastIndex(where: { $0 > 16_000 }), fadeStart + 5 < peaks.count else {
            return XCTFail("no fade heard: \(peaks)")
        }
        // The capture (ALSA's file plugin) is not paced: it runs ahead of the null output's
        // clock by what the music pipe holds, so the fade's steps are not evenly spread in
        // it. What must hold: the level only falls, and falls far, before the pause.
        let fade = Array(peaks[(fadeStart + 1)...])
        XCTAssertLessThan(fade.last ?? .max, 16_383 / 2, "it falls below half: \(fade)")
        XCTAssertTrue(zip(fade, fade.dropFirst()).allSatisfy { $1 <= $0 + 200 }, "only falling: \(fade)")
        XCTAssertGreaterThanOrEqual(fadeStart, 15, "two seconds of full sound before the fade: \(peaks)")

        // Playing again is at the level it was.
        let before = AudioFixtures.leftChannel(capture.bytes).count
        XCTAssertEqual(try client.request("pause 0"), ["OK"])
        // Half a second more, in the same capture or in a new one (the device may have been reopened).
        XCTAssertTrue(waitUntil(timeout: 10) {
            let count = AudioFixtures.leftChannel(capture.bytes).count
            return count > before + 22_050 || (22_050..<before).contains(count)
        })
        let again = AudioFixtures.leftChannel(capture.bytes).suffix(8820).map { abs(Int($0)) }.max() ?? 0
        XCTAssertEqual(again, 16_383, accuracy: 40, "the level came back")
    }

    func testEndOfSongHoldsTheNextSongAndTheSchedulerChannelSetsIt() throws {
        let music = TemporaryDirectory("nimbus-sleep")
        try AudioFixtures.writeSineWAV(to: music.file("a.wav"), frames: 44_100 * 3, frequency: 1000)
        try AudioFixtures.writeSineWAV(to: music.file("b.wav"), frames: 44_100 * 3, frequency: 500)
        // The null output alone: an unpaced capture would have heard the next song's start
        // already, and a song partly heard plays on.
        let (_, _, client) = try start(music, songs: 2, capture: false)
        let watcher = try daemons[0].connect()
        XCTAssertEqual(try client.request("sleeptimer soon"), ["ACK [2@0] {sleeptimer} Expected seconds (at most 604800), \"end\" or 0: \"soon\""])
        XCTAssertEqual(try client.request("sleeptimer -5"), ["ACK [2@0] {sleeptimer} Expected seconds (at most 604800), \"end\" or 0: \"-5\""])
        XCTAssertEqual(try client.request("sendmessage scheduler \"sleep +30\""), ["OK"], "mpdscheduler's message, no subscriber needed")
        let left = Int(field("sleeptimer", try client.request("status")) ?? "") ?? -1
        XCTAssertTrue((1799...1800).contains(left), "thirty minutes: \(left)")
        try watcher.send("idle options\n")
        XCTAssertEqual(try client.request("sleeptimer 0"), ["OK"])
        XCTAssertEqual(try watcher.readResponse(), ["changed: options", "OK"], "changes raise options")
        XCTAssertNil(field("sleeptimer", try client.request("status")))
        XCTAssertEqual(try client.request("sendmessage scheduler \"hello\""), ["ACK [50@0] {sendmessage} nobody is subscribed to this channel"],
            "other messages are messages")

        XCTAssertEqual(try client.request("add a.wav"), ["OK"])
        XCTAssertEqual(try client.request("add b.wav"), ["OK"])
        XCTAssertEqual(try client.request("play"), ["OK"])
        XCTAssertEqual(try client.request("sleeptimer end"), ["OK"])
        let song = Int(field("sleeptimer", try client.request("status")) ?? "") ?? -1
        XCTAssertTrue((1...3).contains(song), "what is left of the song: \(song)")
        XCTAssertTrue(client.waitForStatus("state: pause", "song: 1", timeout: 10), "the next song waits, paused at its start: \((try? client.request("status")) ?? [])")
        let status = try client.request("status")
        XCTAssertEqual(field("elapsed", status), "0.000")
        XCTAssertNil(field("sleeptimer", status))
    }

    func testTheCommandLineSetsAndCancelsIt() throws {
        let music = TemporaryDirectory("nimbus-sleep")
        let (daemon, _, client) = try start(music, songs: 0, capture: false)
        let nimbus = ServerProcess.buildDirectory + "/nimbus"
        let place = ["--host", "127.0.0.1", "--port", "\(daemon.port)"]
        XCTAssertTrue(try runTool(nimbus, ["sleep", "1h30m"] + place).contains("1 h 30 min"))
        let left = Int(field("sleeptimer", try client.request("status")) ?? "") ?? -1
        XCTAssertTrue((5399...5400).contains(left), "\(left)")
        XCTAssertTrue(try runTool(nimbus, ["sleep", "end"] + place).contains("end of this song"))
        XCTAssertEqual(field("sleeptimer", try client.request("status")), "0", "nothing playing: nothing left of it")
        XCTAssertTrue(try runTool(nimbus, ["sleep", "off"] + place).contains("off"))
        XCTAssertNil(field("sleeptimer", try client.request("status")))
        // The package installs `nimbus` as a link to `nimbusd`: under that name it is the CLI.
        let folder = TemporaryDirectory("nimbus-link")
        let link = folder.file("nimbus")
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: ServerProcess.buildDirectory + "/nimbusd")
        XCTAssertTrue(try runTool(link, ["sleep", "30"] + place).contains("30 min"))
        XCTAssertEqual(field("sleeptimer", try client.request("status")).flatMap { Int($0) }.map { (1799...1800).contains($0) }, true)
        XCTAssertTrue(try runTool(link, ["sleep", "off"] + place).contains("off"))
        withExtendedLifetime(folder) {}
        XCTAssertThrowsError(try runTool(nimbus, ["sleep", "soon"] + place), "not a time: a clear error")
    }
}
