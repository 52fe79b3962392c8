import Foundation
import NimbusHarness
import XCTest

/// Player commands later in one command list win over earlier ones, as in MPD: the player's
/// threads are woken only after the answers are written (`HeldWakes`), but what they read
/// changes at once and in order. Each list runs on Debian's MPD and on nimbusd.
final class CommandListPlaybackTests: XCTestCase {
    private func status(_ client: LineClient) throws -> [String: String] {
        var fields: [String: String] = [:]
        for line in try client.request("status") {
            guard let colon = line.firstIndex(of: ":") else { continue }
            fields[String(line[..<colon])] = String(line[line.index(colon, offsetBy: 2)...])
        }
        return fields
    }

    private func list(_ client: LineClient, _ commands: [String]) throws {
        XCTAssertEqual(try client.request((["command_list_begin"] + commands + ["command_list_end"]).joined(separator: "\n")), ["OK"])
    }

    /// Runs `setup` and then `commands` as one list on both daemons; `settled` is what both
    /// must reach (waited for), `check` what both must then show.
    private func compare(
        setup: [String], _ commands: [String], settled: @escaping ([String: String]) -> Bool, line: UInt = #line
    ) throws {
        try XCTSkipUnless(ServerProcess.mpdAvailable, "Debian's mpd is not installed (scripts/install-deps)")
        let music = TemporaryDirectory("nimbus-list-playback")
        for name in ["x", "y"] { try AudioFixtures.writeRampWAV(to: music.file("\(name).wav"), frames: 441_000 * 2) }
        for kind in [ServerProcess.Kind.mpd, .nimbus] {
            let daemon = try ServerProcess(kind, musicDirectory: music.path)
            try daemon.waitForDatabase(songs: 2)
            let client = try daemon.connect()
            for command in ["add x.wav", "add y.wav"] + setup { XCTAssertEqual(try client.request(command), ["OK"], command, line: line) }
            try list(client, commands)
            XCTAssertTrue(
                waitUntil(timeout: 10) { (try? self.status(client)).map(settled) ?? false },
                "\(kind) after \(commands): \((try? status(client)) ?? [:])", line: line)
            daemon.stop()
        }
    }

    private func elapsed(_ status: [String: String]) -> Double { Double(status["elapsed"] ?? "") ?? -1 }

    func testStopAfterPlayInOneListStops() throws {
        try compare(setup: [], ["play 0", "stop"]) { $0["state"] == "stop" && $0["song"] == "0" }
    }

    func testPauseAfterPlayInOneListHoldsAtTheStart() throws {
        try compare(setup: [], ["play 1", "pause 1"]) { $0["state"] == "pause" && $0["song"] == "1" && self.elapsed($0) < 1 }
    }

    func testPauseAfterResumeInOneListStaysPaused() throws {
        try compare(setup: ["play 0", "seekcur 5", "pause 1"], ["pause 0", "pause 1"]) {
            $0["state"] == "pause" && (5..<6).contains(self.elapsed($0))
        }
    }

    func testSeekAfterPlayInOneListPlaysFromThere() throws {
        try compare(setup: [], ["play 0", "seekcur 12"]) { $0["state"] == "play" && $0["song"] == "0" && self.elapsed($0) >= 12 }
    }

    func testPlayAfterStopInOneListPlays() throws {
        try compare(setup: ["play 0"], ["stop", "play 1"]) { $0["state"] == "play" && $0["song"] == "1" && self.elapsed($0) > 0.2 }
    }
}
