import Foundation
import NimbusHarness
import XCTest

/// What the player does at song ends (single, oneshot, consume, repeat, end of the queue),
/// compared with MPD playing the same short files in real time. Timing-dependent fields
/// (elapsed, time, bitrate, audio) are left out; everything else must match.
final class PlaybackDifferentialTests: XCTestCase {
    private static let timeFields = ["elapsed: ", "time: ", "bitrate: ", "audio: "]

    private func status(_ client: LineClient) throws -> [String] {
        try client.request("status").filter { line in !Self.timeFields.contains { line.hasPrefix($0) } }
    }

    /// Runs `steps` on both daemons in lockstep; `until` steps poll each daemon's status until
    /// it shows the given lines, `compare` steps compare the two.
    private enum Step {
        case send(String)
        case until([String])
        /// The current song played past `seconds` and then started again (a repeat).
        case restarted(after: Double)
        case compare(String)
        /// Compares all but `duration`, which MPD 0.23 sometimes keeps from the song before
        /// after a gapless change to a song of another length; Nimbus must show `duration`.
        case compareAllBut(duration: String, label: String)

        static func showing(_ lines: String...) -> Step { .until(lines) }
    }

    private func elapsed(_ client: LineClient) -> Double? {
        (try? client.request("status"))?.first { $0.hasPrefix("elapsed: ") }.flatMap { Double($0.dropFirst(9)) }
    }

    private func compare(_ steps: [Step]) throws {
        try XCTSkipUnless(ServerProcess.mpdAvailable, "Debian's mpd is not installed (scripts/install-deps)")
        let music = TemporaryDirectory("nimbus-playback")
        // One second each: MPD 0.23 itself misbehaves with songs much shorter than that
        // (consume and single+repeat stop early), and its slow replies need the margin.
        for name in ["a", "b", "c"] { try AudioFixtures.writeRampWAV(to: music.file("\(name).wav"), frames: 44_100) }
        try AudioFixtures.writeRampWAV(to: music.file("long.wav"), frames: 88_200)
        // Ten seconds each, for steps that must not race a song's end on a loaded machine.
        for name in ["x", "y", "z"] { try AudioFixtures.writeRampWAV(to: music.file("\(name).wav"), frames: 441_000) }
        let reference = try ServerProcess(.mpd, musicDirectory: music.path)
        let nimbus = try ServerProcess(.nimbus, musicDirectory: music.path)
        try reference.waitForDatabase(songs: 7)
        try nimbus.waitForDatabase(songs: 7)
        let clients = [try reference.connect(), try nimbus.connect()]
        for step in steps {
            switch step {
            case .send(let command):
                for (index, client) in clients.enumerated() { XCTAssertEqual(try client.request(command), ["OK"], "\(command) on \(index == 0 ? "MPD" : "Nimbus")") }
            case .until(let lines):
                for (index, client) in clients.enumerated() {
                    XCTAssertTrue(
                        waitUntil(timeout: 20) { (try? status(client)).map { status in lines.allSatisfy(status.contains) } == true },
                        "\(index == 0 ? "MPD" : "Nimbus") never showed \(lines)")
                }
            case .restarted(let seconds):
                for (index, client) in clients.enumerated() {
                    let name = index == 0 ? "MPD" : "Nimbus"
                    XCTAssertTrue(waitUntil(timeout: 20) { (elapsed(client) ?? 0) > seconds }, "\(name) never played past \(seconds) s")
                    XCTAssertTrue(waitUntil(timeout: 20) { (elapsed(client) ?? .infinity) < seconds / 2 }, "\(name) did not start the song again")
                }
            case .compare(let label):
                let expected = try status(clients[0])
                let actual = DifferentialHarness.as023(try status(clients[1]))
                XCTAssertEqual(actual, expected, label)
                XCTAssertEqual(try clients[1].request("playlist"), try clients[0].request("playlist"), label)
            case .compareAllBut(let duration, let label):
                let expected = try status(clients[0]).filter { !$0.hasPrefix("duration: ") }
                let ours = DifferentialHarness.as023(try status(clients[1]))
                XCTAssertTrue(ours.contains("duration: \(duration)"), "\(label): \(ours)")
                XCTAssertEqual(ours.filter { !$0.hasPrefix("duration: ") }, expected, label)
                XCTAssertEqual(try clients[1].request("playlist"), try clients[0].request("playlist"), label)
            }
        }
    }

    private let queue: [Step] = [.send("add a.wav"), .send("add b.wav"), .send("add c.wav")]
    private let longQueue: [Step] = [.send("add x.wav"), .send("add y.wav"), .send("add z.wav")]

    func testEndOfQueue() throws {
        try compare(queue + [.send("play 1"), .compare("playing"), .showing("state: stop"), .compare("after the last song")])
    }

    func testSinglePausesAtTheStartOfTheNextSong() throws {
        try compare(
            queue + [
                .send("single 1"), .send("play 0"), .showing("state: pause", "song: 1"), .compare("paused at the border"),
                .send("play"), .showing("state: pause", "song: 2"), .compare("again"), .send("play 2"),
                .showing("state: stop"), .compare("single on the last song"),
            ])
    }

    func testOneshotSwitchesItselfOff() throws {
        try compare(queue + [.send("single oneshot"), .send("play 1"), .showing("single: 0", "song: 2"), .compare("after oneshot")])
    }

    func testSingleWithRepeatRepeatsTheSong() throws {
        try compare(
            queue + [.send("add long.wav"), .send("single 1"), .send("repeat 1"), .send("play 3"), .restarted(after: 1.5), .compare("repeating")])
    }

    func testConsumeRemovesPlayedSongs() throws {
        try compare(
            // The middle song lasts ten seconds, so the queue of two is there long enough to be
            // seen by both daemons in turn on a loaded machine.
            [.send("add a.wav"), .send("add x.wav"), .send("add b.wav")] + [
                .send("consume 1"), .send("play 0"), .showing("playlistlength: 2"),
                .compareAllBut(duration: "10.000", label: "one consumed"),
                .showing("state: stop"), .compare("all consumed"),
            ])
    }

    func testRepeatWrapsAround() throws {
        try compare(queue + [.send("repeat 1"), .send("play 2"), .showing("song: 0"), .compare("wrapped to the first song")])
    }

    func testNextAndPreviousWhilePlaying() throws {
        try compare(
            longQueue + [
                .send("play 0"), .send("next"), .compare("after next"), .send("previous"), .compare("after previous"),
                .send("next"), .send("next"), .send("next"), .compare("next past the end"),
            ])
    }

    func testQueueEditsAroundTheCurrentSong() throws {
        try compare(
            longQueue + [
                .send("play 1"), .send("delete 1"), .compare("current deleted"), .send("add x.wav 0"),
                .compare("inserted before current"), .send("move 1 2"), .compare("current moved"), .send("stop"),
                .send("random 1"), .compare("random while stopped"),
            ])
    }
}
