import Foundation
import NimbusHarness
import XCTest

/// Resume positions of long songs, kept in the `elapsed` sticker: a pause or stop keeps the
/// place, `play` starts a few seconds before it — after a restart and after a kill -9 too —,
/// `seek` goes where it is told, and a song heard to its end is marked `played` and starts at
/// 0 again. (`resume_min_length "20"` makes a one-minute song long.)
final class ResumeTests: XCTestCase {
    private var keep: [AnyObject] = []

    override func tearDown() {
        keep.removeAll()
        super.tearDown()
    }

    private func elapsed(_ client: LineClient) throws -> Double {
        Double(try client.request("status").first { $0.hasPrefix("elapsed: ") }?.dropFirst(9) ?? "") ?? -1
    }

    private func sticker(_ client: LineClient, _ name: String) throws -> String? {
        try client.request("sticker get song long.flac \(name)").first { $0.hasPrefix("sticker: \(name)=") }
            .map { String($0.dropFirst("sticker: \(name)=".count)) }
    }

    func testLongSongsResumeWhereTheyWereLeft() throws {
        let music = TemporaryDirectory("nimbus-resume")
        keep.append(music)
        try runTool("sox", ["-n", "-r", "8000", "-c", "1", music.file("long.flac"), "synth", "60", "sine", "440"])
        try runTool("sox", ["-n", "-r", "8000", "-c", "1", music.file("short.flac"), "synth", "5", "sine", "660"])
        let daemon = try ServerProcess(.nimbus, config: "resume_min_length \"20\"", musicDirectory: music.path)
        keep.append(daemon)
        try daemon.waitForDatabase(songs: 2)
        var client = try daemon.connect()
        XCTAssertEqual(try client.request("add long.flac"), ["OK"])
        XCTAssertEqual(try client.request("add short.flac"), ["OK"])
        XCTAssertEqual(try client.request("play 0"), ["OK"])
        XCTAssertEqual(try client.request("seekcur 30"), ["OK"])
        XCTAssertTrue(client.waitForStatus("state: play"))
        XCTAssertEqual(try client.request("pause 1"), ["OK"])
        let kept = Int(try sticker(client, "elapsed") ?? "") ?? -1
        XCTAssertTrue((30...31).contains(kept), "the pause kept the place: \(kept)")
        XCTAssertEqual(try client.request("stop"), ["OK"])
        XCTAssertEqual(try client.request("play 0"), ["OK"])
        XCTAssertEqual(try elapsed(client), Double(kept - 5), accuracy: 1.0, "play starts five seconds before the place")

        // `seek` goes where it is told; a stop keeps that place.
        XCTAssertEqual(try client.request("seekcur 40"), ["OK"])
        XCTAssertTrue(waitUntil(timeout: 5) { ((try? self.elapsed(client)) ?? 0) >= 40 })
        XCTAssertEqual(try client.request("stop"), ["OK"])
        XCTAssertEqual(Double(try sticker(client, "elapsed") ?? "") ?? -1, 40, accuracy: 1)

        // A restart, then a kill -9 after a pause: the place survives both.
        try daemon.restart()
        client = try daemon.connect()
        XCTAssertEqual(try client.request("play 0"), ["OK"])
        XCTAssertEqual(try elapsed(client), 35, accuracy: 1.5, "resumed after a restart")
        XCTAssertEqual(try client.request("seekcur 20"), ["OK"])
        XCTAssertEqual(try client.request("pause 1"), ["OK"])
        _ = daemon.stop(signal: SIGKILL)
        try daemon.restart()
        client = try daemon.connect()
        XCTAssertEqual(try client.request("play 0"), ["OK"])
        XCTAssertEqual(try elapsed(client), 15, accuracy: 1.5, "resumed after kill -9")

        // Heard to the end: `played` is set, `elapsed` gone, and the next play starts at 0.
        XCTAssertEqual(try client.request("seekcur 55"), ["OK"])
        XCTAssertTrue(client.waitForStatus("song: 1", timeout: 15), "the queue moved on to the short song")
        XCTAssertNil(try sticker(client, "elapsed"), "finished: no place to resume")
        let played = Int(try sticker(client, "played") ?? "") ?? 0
        XCTAssertEqual(Double(played), Date().timeIntervalSince1970, accuracy: 60, "played records when")
        XCTAssertEqual(try client.request("play 0"), ["OK"])
        XCTAssertLessThan(try elapsed(client), 2, "a finished song starts at the beginning")

        // Short songs get no place.
        XCTAssertEqual(try client.request("play 1"), ["OK"])
        XCTAssertEqual(try client.request("pause 1"), ["OK"])
        XCTAssertEqual(try client.request("sticker list song short.flac"), ["OK"])
    }
}
