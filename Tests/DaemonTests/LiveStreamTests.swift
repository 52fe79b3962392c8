import Foundation
import NimbusHarness
import XCTest

/// Internet radio: a URL that answers with no length plays as it comes, chosen by its MIME
/// type, through one connection, and obeys stop at once.
final class LiveStreamTests: XCTestCase {
    func testARadioStationPlays() throws {
        let directory = TemporaryDirectory("nimbus-radio")
        try AudioFixtures.writeSineWAV(to: directory.file("tone.wav"), frames: 44_100)
        _ = try runTool("lame", ["--quiet", "-b", "128", directory.file("tone.wav"), directory.file("tone.mp3")])
        let state = directory.file("station.json")
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Scripts/live_stream.py").path
        let station = Process()
        station.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        station.arguments = [script, state, directory.file("tone.mp3")]
        try station.run()
        defer { station.terminate() }
        func stationState() -> [String: Int] {
            guard let data = FileManager.default.contents(atPath: state),
                let json = try? JSONSerialization.jsonObject(with: data) as? [String: Int]
            else { return [:] }
            return json
        }
        XCTAssertTrue(waitUntil { stationState()["port"] != nil })
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
        let asked = Date()
        XCTAssertEqual(try client.request("stop"), ["OK"])
        XCTAssertTrue(try client.request("status").contains("state: stop"))
        XCTAssertLessThan(Date().timeIntervalSince(asked), 1)
        // The length probe and the stream itself: no third connection (and no second stream).
        XCTAssertEqual(stationState()["requests"], 2)
    }
}
