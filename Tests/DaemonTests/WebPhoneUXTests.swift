import Foundation
import NimbusHarness
import XCTest

/// The page as a person on a phone uses it, in headless Chromium (Scripts/web_phone_ux.py):
/// every action button of every list checked against what the queue holds afterwards ("Play
/// next" inserts after the playing song); nothing destroyed without a confirmation or an undo;
/// Back inside the Library; search as you type; queue rows readable at 320 px; the mini
/// player's Next; podcast artwork and episodes newest first; account forms in people's words
/// with errors as sentences; 44-pixel controls; titled pages; the laptop layout using the
/// width; the web app manifest and its icons; the Media Session while *Listen here* plays —
/// and the page surviving a daemon restart without a reload. Screenshots at 320×640, 360×740
/// and 1366×768 go to `.build/artifacts/web`; no JavaScript error is allowed.
final class WebPhoneUXTests: XCTestCase {
    func testThePageOnAPhoneAndThroughARestart() throws {
        try XCTSkipUnless(FileManager.default.fileExists(atPath: "/usr/bin/chromedriver"), "chromium-driver is not installed")
        let work = TemporaryDirectory("nimbus-web-ux")
        let music = try Fixtures.freshLibrary(in: work.path)
        try FileManager.default.createDirectory(atPath: music + "/Long", withIntermediateDirectories: true)
        try runTool("sox", ["-n", "-r", "8000", "-c", "1", "-b", "16", music + "/Long/long.wav", "synth", "120", "sine", "440"])
        // A podcast with a picture and three episodes published on three days.
        let feeds = try HTTPFileServer()
        try runTool("sox", ["-n", "-r", "44100", "-c", "1", work.file("episode.wav"), "synth", "2", "sine", "440"])
        try runTool("lame", ["--quiet", "-b", "64", work.file("episode.wav"), work.file("episode.mp3")])
        let audio = Array(try Data(contentsOf: URL(fileURLWithPath: work.file("episode.mp3"))))
        for index in 1...3 { try feeds.put("/media/\(index).mp3", audio) }
        try runTool("ffmpeg", ["-loglevel", "error", "-y", "-f", "lavfi", "-i", "color=red:size=64x64", "-frames:v", "1", work.file("show.jpg")])
        try feeds.put("/show.jpg", Array(try Data(contentsOf: URL(fileURLWithPath: work.file("show.jpg")))))
        var items = ""
        for (index, day) in [(1, "Sun, 29 Nov 2026"), (3, "Tue, 01 Dec 2026"), (2, "Mon, 30 Nov 2026")] {
            items += "<item><guid>\(index)</guid><title>Episode \(index)</title><pubDate>\(day) 07:00:00 +0000</pubDate>"
                + "<itunes:duration>2</itunes:duration><enclosure url=\"media/\(index).mp3\" type=\"audio/mpeg\"/></item>"
        }
        try feeds.put("/feed.xml", """
            <rss xmlns:itunes="http://www.itunes.com/dtds/podcast-1.0.dtd"><channel><title>Tea Time</title>
            <itunes:image href="\(feeds.url)/show.jpg"/>\(items)</channel></rss>
            """)
        let port = freePort(), stream = freePort()
        let config = """
            web {
                port "\(port)"
            }
            audio_output {
                type "httpd"
                name "stream"
                port "\(stream)"
                encoder "wave"
            }

            """
        let daemon = try ServerProcess(.nimbus, config: config, musicDirectory: music)
        try daemon.waitForDatabase(songs: 13)
        let client = try daemon.connect(timeout: 30)
        XCTAssertEqual(try client.request("podcastsubscribe \(feeds.url)/feed.xml"), ["podcast: Tea Time", "OK"])
        XCTAssertTrue(waitUntil { (try? client.request("lsinfo \"podcasts/Tea Time\""))?.filter { $0.hasPrefix("file: ") }.count == 3 })
        for line in ["add \"Long/long.wav\"", "add \"Alpha Band/First Light/03 - Dusk.wav\"", "play 0"] {
            XCTAssertEqual(try client.request(line), ["OK"], line)
        }
        let artifacts = Fixtures.repositoryRoot + "/.build/artifacts/web"
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Scripts/web_phone_ux.py").path
        let output = try runTool(
            "/usr/bin/python3",
            [script, "http://127.0.0.1:\(port)/", "\(daemon.port)", artifacts, ServerProcess.nimbusExecutable, daemon.configPath, feeds.url])
        let result = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [String: Any], output)
        XCTAssertNil(result["error"], "the browser script stopped: \(result["error"] ?? "")")
        XCTAssertEqual(result["severe"] as? [String], [], "JavaScript errors")
        let checks = try XCTUnwrap(result["checks"] as? [String: Any], output)
        // Every check the script made, by name: each must have come out true.
        for (name, value) in checks.sorted(by: { $0.key < $1.key }) {
            XCTAssertEqual(value as? Bool, true, "\(name): \(result["details"].flatMap { ($0 as? [String: Any])?[name] } ?? "")")
        }
        for name in [
            "album play", "album add", "album play next", "folder play", "folder play next", "folder add", "song play now",
            "song play next", "song add", "search song play next", "search song add", "episode play next", "episode add",
            "queue priority", "queue move up", "queue move to top", "queue remove", "queue remove undone",
            "queue cleared", "queue clear undone", "playlist delete asks", "playlist delete cancelled", "playlist deleted",
            "back returns from an album", "back returns from an artist", "search as you type", "search finds artists",
            "search finds albums", "search finds songs", "queue rows on two lines 320", "queue total time", "one action per queue row",
            "mini next", "podcast artwork", "episodes newest first", "account labels in words", "account help line",
            "account error as a sentence", "controls 44 px 320", "controls 44 px 360", "nothing scrolls sideways 320",
            "nothing scrolls sideways 360", "pages titled", "laptop uses the width",
            "manifest", "icon 192", "icon 512", "media session", "reconnecting shown", "seek bar stops", "tap while away explains",
            "reconnected without a reload", "queue restored", "status restored", "outputs restored", "page restored",
        ] {
            XCTAssertNotNil(checks[name], "the script did not check \(name)")
        }
        for file in ["phone-320-now", "phone-320-queue", "phone-360-queue", "phone-360-library", "laptop-1366-now", "phone-360-reconnecting"] {
            XCTAssertTrue(FileManager.default.fileExists(atPath: artifacts + "/\(file).png"), file)
        }
        _ = (feeds, work, daemon)
    }
}
