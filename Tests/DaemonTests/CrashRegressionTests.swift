import Foundation
import NimbusHarness
import XCTest

/// The inputs that once crashed the daemon through a libFLAC handle freed twice (a decoder
/// whose opening failed): each must now fail the song and leave the daemon serving.
final class CrashRegressionTests: XCTestCase {
    private var keep: [AnyObject] = []

    override func tearDown() {
        keep.removeAll()
        super.tearDown()
    }

    private func assertAlive(_ daemon: ServerProcess, _ message: String, file: StaticString = #filePath, line: UInt = #line) {
        let answer = try? daemon.connect().request("ping")
        XCTAssertEqual(answer, ["OK"], "\(message): the daemon died\n\(daemon.output.suffix(2000))", file: file, line: line)
    }

    private func flac(seconds: Int, frequency: Int, to path: String) throws {
        let wav = path + ".wav"
        try runTool("sox", ["-n", "-r", "44100", "-c", "2", "-b", "16", wav, "synth", String(seconds), "sine", String(frequency)])
        try runTool("flac", ["-s", "-f", "-T", "TITLE=Sine", "-o", path, wav])
        try FileManager.default.removeItem(atPath: wav)
    }

    /// `flac` a 5 s sine, keep its first 4000 bytes (inside the metadata), add, play: MPD
    /// plays on, and so must Nimbus, with the song's failure in `error:`.
    func testAFLACCutInsideItsMetadataFailsAndPlaybackGoesOn() throws {
        let music = TemporaryDirectory("nimbus-crash")
        try flac(seconds: 5, frequency: 440, to: music.file("whole.flac"))
        let bytes = try Data(contentsOf: URL(fileURLWithPath: music.file("whole.flac")))
        try bytes.prefix(4000).write(to: URL(fileURLWithPath: music.file("cut.flac")))
        try AudioFixtures.writeSineWAV(to: music.file("next.wav"), frames: 22_050, frequency: 1000)
        let daemon = try ServerProcess(.nimbus, musicDirectory: music.path)
        keep += [music, daemon]
        try daemon.waitForDatabase(songs: 3)
        let client = try daemon.connect()
        for _ in 0..<5 {
            XCTAssertEqual(try client.request("clear"), ["OK"])
            XCTAssertEqual(try client.request("add cut.flac"), ["OK"])
            XCTAssertEqual(try client.request("add next.wav"), ["OK"])
            XCTAssertEqual(try client.request("play"), ["OK"])
            XCTAssertTrue(client.waitForStatus("state: stop"), "playback did not end")
            assertAlive(daemon, "a FLAC cut inside its metadata")
        }
        XCTAssertTrue(try client.request("status").contains { $0.hasPrefix("error: ") && $0.contains("cut.flac") })
        XCTAssertTrue(daemon.log.contains("cut.flac"), "the failure is logged")
    }

    /// Every decoder, on headers cut at many lengths: each opening fails or plays, cleanly.
    func testHeadersCutAtEveryLengthNeverCrashTheDaemon() throws {
        let music = TemporaryDirectory("nimbus-crash")
        try flac(seconds: 1, frequency: 440, to: music.file("source.flac"))
        try runTool("sox", ["-n", "-r", "44100", "-c", "2", "-b", "16", music.file("source.wav"), "synth", "1", "sine", "500"])
        try runTool("lame", ["--quiet", "-b", "128", music.file("source.wav"), music.file("source.mp3")])
        try runTool("oggenc", ["-Q", "-o", music.file("source.ogg"), music.file("source.wav")])
        // Outside the music directory: added by path, whatever the scanner makes of them.
        let cuts = TemporaryDirectory("nimbus-cuts")
        keep.append(cuts)
        var names: [String] = []
        for suffix in ["flac", "mp3", "ogg", "wav"] {
            let bytes = try Data(contentsOf: URL(fileURLWithPath: music.file("source.\(suffix)")))
            for length in [0, 4, 40, 100, 500, 1500, 4000, 9000] where length < bytes.count {
                let name = "cut-\(length).\(suffix)"
                try bytes.prefix(length).write(to: URL(fileURLWithPath: cuts.file(name)))
                names.append(name)
            }
        }
        let daemon = try ServerProcess(.nimbus, config: "audio_output {\n type \"null\"\n name \"fast\"\n sync \"no\"\n}", musicDirectory: music.path)
        keep += [music, daemon]
        try daemon.waitForDatabase(songs: 4, timeout: 60)
        let local = try LineClient.connected(.unix(path: daemon.socketPath)).0
        for name in names {
            // By absolute path, as a local client may; a file no scanner accepts is refused.
            let answer = try local.request("add \"\(cuts.file(name))\"")
            XCTAssertTrue(answer == ["OK"] || answer == ["ACK [50@0] {add} No such song"], "\(name): \(answer)")
        }
        XCTAssertEqual(try local.request("play"), ["OK"])
        XCTAssertTrue(local.waitForStatus("state: stop", timeout: 60), "the queue of broken files never ended")
        assertAlive(daemon, "cut headers")
    }

    /// `stop` while a cloud FLAC's metadata is still arriving over a 20 KB/s link.
    func testStopWhileACloudFLACsMetadataDownloads() throws {
        try XCTSkipUnless(WebDAVServer.available, "nginx with dav-ext is not installed (scripts/install-deps)")
        let share = TemporaryDirectory("nimbus-share")
        // A big picture first, so the metadata takes seconds to arrive at 20 KB/s.
        try flac(seconds: 20, frequency: 440, to: share.file("plain.flac"))
        let picture = share.file("cover.bin")
        try Data((0..<200_000).map { UInt8(truncatingIfNeeded: $0 &* 7919) }).write(to: URL(fileURLWithPath: picture))
        try runTool("flac", ["-s", "-f", "--picture=3|image/jpeg||8x8x24|\(picture)", "-o", share.file("song.flac"), share.file("plain.flac")])
        try FileManager.default.removeItem(atPath: share.file("plain.flac"))
        try FileManager.default.removeItem(atPath: picture)
        let server = try WebDAVServer(root: share.path, authenticated: false, rate: 20_000)
        let daemon = try ServerProcess(
            .nimbus, config: "cloud {\n name \"dav\"\n type \"webdav\"\n url \"\(server.url)\"\n}", musicDirectory: TemporaryDirectory("nimbus-local").path)
        keep += [share, server, daemon]
        try daemon.waitForDatabase(songs: 1, timeout: 90)
        let client = try daemon.connect()
        XCTAssertEqual(try client.request("add dav/song.flac"), ["OK"])
        for attempt in 0..<5 {
            XCTAssertEqual(try client.request("play"), ["OK"])
            Thread.sleep(forTimeInterval: 0.05 + 0.1 * Double(attempt))
            XCTAssertEqual(try client.request("stop"), ["OK"])
            assertAlive(daemon, "stop during metadata, attempt \(attempt + 1)")
        }
    }
}
