import NimbusHarness
import XCTest

/// Player behaviour that once differed from MPD 0.24, on a server with a paced null output.
final class PlayerDifferencesTests: XCTestCase {
    private func status(_ client: LineClient) throws -> [String: String] {
        var fields: [String: String] = [:]
        for line in try client.request("status").dropLast() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            fields[String(line[..<colon])] = String(line[line.index(colon, offsetBy: 2)...])
        }
        return fields
    }

    /// MPD clamps a seek past the end to the end: the song ends at once and the next one plays
    /// without an error, and `elapsed` never shows more than the song has. (libFLAC and
    /// libvorbisfile refuse to seek there, which once failed the song with "seek failed".)
    func testSeekingPastTheEndPlaysTheNextSong() throws {
        let server = try TestServer(musicDirectory: try Fixtures.library())
        let client = try server.connect()
        for song in ["Alpha Band/First Light/01 - Dawn.flac", "Alpha Band/Second Wind/02 - Café.ogg",
                     "Alpha Band/First Light/02 - Noon.mp3", "Alpha Band/First Light/03 - Dusk.wav"] {
            XCTAssertEqual(try client.request("clear"), ["OK"])
            XCTAssertEqual(try client.request("add \"\(song)\""), ["OK"])
            XCTAssertEqual(try client.request("add untagged.wav"), ["OK"])
            XCTAssertEqual(try client.request("play 0"), ["OK"])
            XCTAssertEqual(try client.request("seek 0 999"), ["OK"], song)
            let first = try status(client)
            XCTAssertLessThanOrEqual(Double(first["elapsed"] ?? "0") ?? 0, Double(first["duration"] ?? "0") ?? 0, song)
            XCTAssertTrue(waitUntil(timeout: 3) { (try? self.status(client)["song"]) == "1" }, "\(song): the next song did not start")
            XCTAssertNil(try status(client)["error"], song)
        }
    }

    /// MPD's SongStarted: a song that starts playing loses its priority, whether started by
    /// `play` or reached by the queue running on.
    func testASongThatStartsLosesItsPriority() throws {
        let server = try TestServer(musicDirectory: try Fixtures.library())
        let client = try server.connect()
        XCTAssertEqual(try client.request("add \"Alpha Band/First Light/03 - Dusk.wav\""), ["OK"])
        XCTAssertEqual(try client.request("add untagged.wav"), ["OK"])
        XCTAssertEqual(try client.request("prio 9 0:2"), ["OK"])
        XCTAssertEqual(try client.request("play 0"), ["OK"])
        XCTAssertFalse(try client.request("playlistinfo 0").contains("Prio: 9"))
        XCTAssertTrue(try client.request("playlistinfo 1").contains("Prio: 9"))
        XCTAssertTrue(waitUntil(timeout: 4) { (try? self.status(client)["song"]) == "1" })
        XCTAssertFalse(try client.request("playlistinfo 1").contains("Prio: 9"), "the queued song kept its priority")
    }
}
