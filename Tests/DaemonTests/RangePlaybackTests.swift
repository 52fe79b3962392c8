import Foundation
import NimbusHarness
import XCTest

/// A song played as a range (`rangeid`, and CUE tracks) counts as MPD's decoder counts it:
/// `elapsed` from the range's start, `duration` and `time`'s total the range's length, and a
/// seek inside the range.
final class RangePlaybackTests: XCTestCase {
    private func status(_ client: LineClient) throws -> [String: String] {
        Dictionary(
            try client.request("status").compactMap { line -> (String, String)? in
                guard let colon = line.firstIndex(of: ":") else { return nil }
                return (String(line[..<colon]), String(line[line.index(colon, offsetBy: 2)...]))
            }, uniquingKeysWith: { first, _ in first })
    }

    func testElapsedAndDurationCountFromTheRangesStart() throws {
        let music = TemporaryDirectory("nimbus-range")
        try AudioFixtures.writeRampWAV(to: music.file("long.wav"), frames: 44100 * 30)
        let daemon = try ServerProcess(.nimbus, musicDirectory: music.path)
        try daemon.waitForDatabase(songs: 1)
        let client = try daemon.connect()
        XCTAssertEqual(try client.request("add long.wav"), ["OK"])
        let id = try XCTUnwrap(try client.request("playlistid").first { $0.hasPrefix("Id: ") }?.dropFirst(4))
        XCTAssertEqual(try client.request("rangeid \(id) 10:20"), ["OK"])
        XCTAssertEqual(try client.request("play"), ["OK"])
        XCTAssertTrue(client.waitForElapsed(1))
        var now = try status(client)
        XCTAssertEqual(now["duration"], "10.000")
        XCTAssertLessThan(try XCTUnwrap(Double(now["elapsed"] ?? "")), 9, "counted from the range's start: \(now)")
        XCTAssertEqual(now["time"]?.split(separator: ":").last, "10")
        XCTAssertEqual(try client.request("seekcur 5"), ["OK"])
        // From the seek on, every answer says 5 s or more into the range, never its start.
        for _ in 0..<20 {
            now = try status(client)
            let elapsed = try XCTUnwrap(Double(now["elapsed"] ?? ""))
            XCTAssertTrue((5..<10).contains(elapsed), "the seek lands inside the range: \(now)")
        }
    }
}
