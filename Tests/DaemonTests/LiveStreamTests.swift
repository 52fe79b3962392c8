import Foundation
import NimbusHarness
import XCTest

/// Internet radio: a URL that answers with no length plays as it comes, chosen by its MIME
/// type, through one connection, and obeys stop at once.
final class LiveStreamTests: XCTestCase {
    /// A test station from `Scripts/`, and what it writes of itself (`port`, counters).
    private func startStation(_ name: String, _ arguments: [String], state: String) throws -> (Process, () -> [String: Int]) {
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Scripts/" + name).path
        let station = Process()
        station.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        station.arguments = [script] + arguments
        station.standardError = FileHandle.nullDevice
        try station.run()
        let read = { () -> [String: Int] in
            guard let data = FileManager.default.contents(atPath: state),
                let json = try? JSONSerialization.jsonObject(with: data) as? [String: Int]
            else { return [:] }
            return json
        }
        XCTAssertTrue(waitUntil { read()["port"] != nil }, "the station \(name) did not start")
        return (station, read)
    }

    func testARadioStationPlays() throws {
        let directory = TemporaryDirectory("nimbus-radio")
        try AudioFixtures.writeSineWAV(to: directory.file("tone.wav"), frames: 44_100)
        _ = try runTool("lame", ["--quiet", "-b", "128", directory.file("tone.wav"), directory.file("tone.mp3")])
        let state = directory.file("station.json")
        let (station, stationState) = try startStation("live_stream.py", [state, directory.file("tone.mp3")], state: state)
        defer { station.terminate() }
        let url = "http://127.0.0.1:\(stationState()["port"] ?? 0)/stream"

        let daemon = try ServerProcess(.nimbus)
        let client = try daemon.connect()
        XCTAssertEqual(try client.request("add \(url)"), ["OK"])
        XCTAssertEqual(try client.request("play"), ["OK"])
        var status: [String] = []
        XCTAssertTrue(
            waitUntil(timeout: 10) {
                status = (try? client.request("status")) ?? []
                return status.first { $0.hasPrefix("elapsed: ") }.flatMap { Double($0.dropFirst(9)) }.map { $0 > 1.5 } == true
            }, "\(status) \(daemon.log)")
        XCTAssertTrue(status.contains("state: play"))
        XCTAssertTrue(status.contains("audio: 44100:16:2"), "\(status)")
        XCTAssertFalse(status.contains { $0.hasPrefix("duration: ") }, "a stream has no duration")
        XCTAssertNil(status.first { $0.hasPrefix("error:") })
        XCTAssertEqual(try client.request("currentsong").first, "file: \(url)")
        // The station never stops sending: a `stop` that waited for the stream would never be answered.
        XCTAssertEqual(try client.request("stop"), ["OK"])
        XCTAssertTrue(try client.request("status").contains("state: stop"))
        // The length probe and the stream itself: no third connection (and no second stream).
        XCTAssertEqual(stationState()["requests"], 2)
    }

    /// ICY: the station's `icy-name` becomes Name and each StreamTitle the Title of the
    /// current song, waking `idle player`; when the station drops the connection, Nimbus calls
    /// again and plays on with the new title.
    func testICYTitlesShowAndADroppedStationIsCalledAgain() throws {
        let directory = TemporaryDirectory("nimbus-radio")
        try AudioFixtures.writeSineWAV(to: directory.file("tone.wav"), frames: 441_000)
        _ = try runTool("lame", ["--quiet", "-b", "128", directory.file("tone.wav"), directory.file("tone.mp3")])
        let state = directory.file("station.json")
        let (station, stationState) = try startStation("icy_radio.py", [directory.file("tone.mp3"), state], state: state)
        defer { station.terminate() }
        let url = "http://127.0.0.1:\(stationState()["port"] ?? 0)/radio"

        let daemon = try ServerProcess(.nimbus)
        let client = try daemon.connect()
        let watcher = try daemon.connect()
        XCTAssertEqual(try client.request("add \(url)"), ["OK"])
        try watcher.send("idle player\n")
        XCTAssertEqual(try client.request("play"), ["OK"])
        var song: [String] = []
        XCTAssertTrue(
            waitUntil(timeout: 10) {
                song = (try? client.request("currentsong")) ?? []
                return song.contains("Title: First Title")
            }, "\(song) \(daemon.log)")
        XCTAssertTrue(song.contains("Name: Test Radio"), "\(song)")
        XCTAssertEqual(try watcher.readResponse(), ["changed: player", "OK"])
        // The station drops the first connection after 64 KiB: Nimbus calls again.
        XCTAssertTrue(
            waitUntil(timeout: 15) {
                song = (try? client.request("currentsong")) ?? []
                return song.contains("Title: Second Title")
            }, "\(song) \(stationState()) \(daemon.log)")
        XCTAssertGreaterThanOrEqual(stationState()["connections"] ?? 0, 2)
        let status = try client.request("status")
        XCTAssertTrue(status.contains("state: play"), "still playing after the drop: \(status)")
        XCTAssertFalse(status.contains { $0.hasPrefix("error: ") }, "\(status)")
        XCTAssertEqual(try client.request("playlistinfo").filter { $0.hasPrefix("Title: ") }, ["Title: Second Title"], "the queue entry took the title")
    }
}
