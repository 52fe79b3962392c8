import Foundation
import NimbusHarness
import XCTest

/// The phone as the box's remote and companion (DSub's jukebox, Symfonium's bookmarks and
/// queue sync, podcasts, lyrics, radio) through py-opensonic, with python-mpd clients on the
/// MPD port seeing every change and making their own (Scripts/subsonic_remote.py).
final class SubsonicRemoteTests: XCTestCase {
    var keep: [AnyObject] = []

    override func tearDown() {
        keep.removeAll()
        super.tearDown()
    }

    static var script: String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Scripts/subsonic_remote.py").path
    }

    /// An ID3v2.4 tag holding lyrics both ways: USLT (plain) and SYLT (timed, milliseconds).
    static func lyricsTag() -> [UInt8] {
        func synchsafe(_ value: Int) -> [UInt8] { [UInt8(value >> 21 & 0x7F), UInt8(value >> 14 & 0x7F), UInt8(value >> 7 & 0x7F), UInt8(value & 0x7F)] }
        func frame(_ id: String, _ body: [UInt8]) -> [UInt8] { Array(id.utf8) + synchsafe(body.count) + [0, 0] + body }
        func time(_ value: UInt32) -> [UInt8] { withUnsafeBytes(of: value.bigEndian) { Array($0) } }
        let uslt = [3] + Array("eng".utf8) + [0] + Array("Unsynced words".utf8)
        let sylt = [3] + Array("eng".utf8) + [2, 1, 0] + Array("Up".utf8) + [0] + time(1000) + Array("Down".utf8) + [0] + time(2500)
        let frames = frame("TIT2", [3] + Array("Timed".utf8)) + frame("USLT", uslt) + frame("SYLT", sylt)
        return Array("ID3".utf8) + [4, 0, 0] + synchsafe(frames.count) + frames
    }

    func testJukeboxBookmarksQueuesPodcastsLyricsAndRadioWithMPDClients() throws {
        try XCTSkipUnless(FileManager.default.isExecutableFile(atPath: SubsonicAPITests.python), "scripts/install-python-clients has not run")
        let scratch = TemporaryDirectory("nimbus-subsonic-remote")
        keep.append(scratch)
        let music = try Fixtures.freshLibrary(in: scratch.path)
        let sung = music + "/Sung"
        try FileManager.default.createDirectory(atPath: sung, withIntermediateDirectories: true)
        try runTool("sox", ["-D", "-n", "-r", "44100", "-c", "2", "-b", "16", scratch.file("tone.wav"), "synth", "4", "sine", "330", "vol", "0.3"])
        try runTool(
            "flac", ["-s", "-f", "-T", "ARTIST=Singer", "-T", "TITLE=Tagged", "-T", "LYRICS=Plain words\non two lines", "-o", sung + "/tagged.flac",
                scratch.file("tone.wav")])
        try runTool("lame", ["--quiet", "-b", "64", scratch.file("tone.wav"), scratch.file("plain.mp3")])
        let mp3 = try Data(contentsOf: URL(fileURLWithPath: scratch.file("plain.mp3")))
        try (Data(Self.lyricsTag()) + mp3).write(to: URL(fileURLWithPath: sung + "/timed.mp3"))
        try runTool("oggenc", ["--quiet", "-t", "Filed", "-o", sung + "/filed.ogg", scratch.file("tone.wav")])
        try "[ar:Singer]\n[ti:Filed]\n[00:00.50]Hello\n[00:01.25]Again\n[00:03.00]Hello\n".write(
            toFile: sung + "/filed.lrc", atomically: true, encoding: .utf8)

        let feed = try HTTPFileServer()
        keep.append(feed)
        try runTool("sox", ["-n", "-r", "44100", "-c", "1", scratch.file("episode.wav"), "synth", "3", "sine", "440"])
        try runTool("lame", ["--quiet", "-b", "64", scratch.file("episode.wav"), scratch.file("episode.mp3")])
        try feed.put("/media/1.mp3", Array(try Data(contentsOf: URL(fileURLWithPath: scratch.file("episode.mp3")))))
        try feed.put("/feed.xml", """
            <?xml version="1.0" encoding="UTF-8"?>
            <rss version="2.0"><channel><title>Talk</title>
            <item><guid>t-1</guid><title>First</title><pubDate>Mon, 30 Nov 2026 07:00:00 +0000</pubDate>
            <enclosure url="media/1.mp3" type="audio/mpeg"/></item></channel></rss>
            """)

        let web = freePort()
        let config = """
            web {
                port "\(web)"
            }
            subsonic_user {
                name "anna"
                password "sesame"
                permissions "read,add,player,control,admin"
            }
            subsonic_user {
                name "ben"
                password "pw"
                permissions "read"
            }
            audio_output {
                type "null"
                name "speakers"
                mixer_type "software"
            }
            """
        let daemon = try ServerProcess(.nimbus, config: config, musicDirectory: music, nullOutput: false)
        keep.append(daemon)
        try daemon.waitForDatabase(songs: 15)
        let arguments = [Self.script, String(web), String(daemon.port), feed.url + "/feed.xml", scratch.file("episode.mp3")]
        let first = try runTool(SubsonicAPITests.python, arguments + ["first"], includingErrors: true)
        // py-opensonic warns on stderr about its unclosed HTTP session: ALL OK is the verdict.
        XCTAssertTrue(first.contains("ALL OK\n") && !first.contains("FAIL"), first)

        try daemon.restart()
        let again = try runTool(SubsonicAPITests.python, arguments + ["restarted"], includingErrors: true)
        XCTAssertTrue(again.contains("ALL OK\n") && !again.contains("FAIL"), "the phones' queues across a restart: \(again)")
        XCTAssertFalse(daemon.log.contains("sesame"), "a password reached the log")
    }
}
