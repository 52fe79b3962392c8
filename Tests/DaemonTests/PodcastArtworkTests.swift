import Foundation
import NimbusHarness
import XCTest

/// A podcast as feeds write them in the wild, over TCP: an episode's own image and the show's
/// as `albumart` and `readpicture` answer them (the bytes the feed's server holds), titles
/// that are entity-escaped markup kept as text, and an entity-escaped HTML description as the
/// same plain `Comment` a CDATA one gives.
final class PodcastArtworkTests: XCTestCase {
    private var keep: [AnyObject] = []

    override func tearDown() {
        keep.removeAll()
        super.tearDown()
    }

    private func image(_ color: String, _ format: String, in scratch: TemporaryDirectory) throws -> [UInt8] {
        let path = scratch.file("\(color).\(format)")
        try runTool("ffmpeg", ["-hide_banner", "-loglevel", "error", "-y", "-f", "lavfi", "-i", "color=\(color):size=16x16", "-frames:v", "1", path])
        return Array(try Data(contentsOf: URL(fileURLWithPath: path)))
    }

    /// All of a binary answer (`albumart`, `readpicture`): its bytes and its fields.
    private func binary(_ client: LineClient, _ command: String, _ uri: String) throws -> (bytes: [UInt8], fields: [String]) {
        var bytes: [UInt8] = [], fields: [String] = []
        while true {
            try client.send("\(command) \"\(uri)\" \(bytes.count)\n")
            var size = 0
            while true {
                let line = try client.readLine()
                if line == "OK" { return (bytes, fields) }
                if line.hasPrefix("ACK") {
                    XCTFail("\(command) \(uri): \(line)")
                    return (bytes, fields)
                }
                if line.hasPrefix("size: ") { size = Int(line.dropFirst(6))! }
                if line.hasPrefix("binary: ") {
                    bytes += try client.readBytes(Int(line.dropFirst(8))!)
                    XCTAssertEqual(try client.readResponse(), ["", "OK"])
                    break
                }
                fields.append(line)
            }
            if bytes.count >= size { return (bytes, fields) }
        }
    }

    func testEpisodesHaveCoversAndEscapedTextIsKept() throws {
        try XCTSkipUnless(FileManager.default.isExecutableFile(atPath: "/usr/bin/ffmpeg"), "ffmpeg is not installed (scripts/install-deps)")
        let server = try HTTPFileServer()
        let scratch = TemporaryDirectory("nimbus-podcast-art")
        keep += [server, scratch]
        try runTool("sox", ["-n", "-r", "44100", "-c", "1", scratch.file("episode.wav"), "synth", "2", "sine", "440"])
        try runTool("lame", ["--quiet", "-b", "64", scratch.file("episode.wav"), scratch.file("episode.mp3")])
        let audio = Array(try Data(contentsOf: URL(fileURLWithPath: scratch.file("episode.mp3"))))
        let showImage = try image("blue", "jpg", in: scratch), episodeImage = try image("red", "png", in: scratch)
        for path in ["/media/1.mp3", "/media/2.mp3"] { try server.put(path, audio) }
        try server.put("/art/show.jpg", showImage)
        try server.put("/art/episode-2.png", episodeImage)
        try server.put("/feed.xml", Array("""
            <?xml version="1.0" encoding="UTF-8"?>
            <rss version="2.0" xmlns:itunes="http://www.itunes.com/dtds/podcast-1.0.dtd"><channel>
            <title>Tea &amp; Talk</title><itunes:image href="art/show.jpg"/>
            <item><guid>2</guid><title>&lt;b&gt;Bold&lt;/b&gt; &amp; brave</title><pubDate>Tue, 01 Dec 2026 07:00:00 +0000</pubDate>
              <itunes:image href="\(server.url)/art/episode-2.png"/>
              <description>&lt;p&gt;Hello &amp;amp; &lt;a href="x"&gt;welcome&lt;/a&gt;.&lt;br/&gt;Line two&lt;/p&gt;</description>
              <enclosure url="media/2.mp3" type="audio/mpeg"/></item>
            <item><guid>1</guid><title>Tom &lt;Jerry&gt;</title><pubDate>Mon, 30 Nov 2026 07:00:00 +0000</pubDate>
              <description><![CDATA[<p>Hello &amp; <a href="x">welcome</a>.<br/>Line two</p>]]></description>
              <enclosure url="media/1.mp3" type="audio/mpeg"/></item>
            </channel></rss>
            """.utf8))
        // Comment is off by default, as in MPD.
        let daemon = try ServerProcess(.nimbus, config: "metadata_to_use \"+comment\"", musicDirectory: try Fixtures.library())
        keep.append(daemon)
        try daemon.waitForDatabase(songs: 12)
        let client = try daemon.connect()
        XCTAssertEqual(try client.request("podcastsubscribe \"\(server.url)/feed.xml\""), ["podcast: Tea & Talk", "OK"])
        try daemon.waitForDatabase(songs: 14)
        // The file name is the title made safe as a path (its `/` a space); the Title tag is the title.
        let bold = "podcasts/Tea & Talk/2026-12-01 - <b>Bold< b> & brave.mp3"
        let files = try client.request("lsinfo \"podcasts/Tea & Talk\"").filter { $0.hasPrefix("file: ") }
        XCTAssertEqual(Set(files), ["file: \(bold)", "file: podcasts/Tea & Talk/2026-11-30 - Tom <Jerry>.mp3"], "no item dropped")
        let first = try client.request("lsinfo \"\(bold)\""), second = try client.request("lsinfo \"podcasts/Tea & Talk/2026-11-30 - Tom <Jerry>.mp3\"")
        XCTAssertTrue(first.contains("Title: <b>Bold</b> & brave"), "\(first)")
        XCTAssertTrue(second.contains("Title: Tom <Jerry>"), "\(second)")
        XCTAssertTrue(first.first { $0.hasPrefix("Comment: ") }?.hasPrefix("Comment: Hello & welcome.") == true, "\(first)")
        XCTAssertEqual(first.first { $0.hasPrefix("Comment: ") }, second.first { $0.hasPrefix("Comment: ") }, "escaped or CDATA, one text")

        XCTAssertEqual(try client.request("binarylimit 100"), ["OK"])
        XCTAssertEqual(try binary(client, "albumart", bold).bytes, episodeImage, "the episode's own image")
        let picture = try binary(client, "readpicture", bold)
        XCTAssertEqual(picture.bytes, episodeImage)
        XCTAssertTrue(picture.fields.contains("type: image/png"), "\(picture.fields)")
        let other = "podcasts/Tea & Talk/2026-11-30 - Tom <Jerry>.mp3"
        XCTAssertEqual(try binary(client, "albumart", other).bytes, showImage, "else the show's")
        XCTAssertEqual(try binary(client, "readpicture", other).bytes, showImage)
        XCTAssertEqual(try binary(client, "albumart", "podcasts/Tea & Talk/").bytes, showImage, "the show folder's cover")
        // Fetched once: asked again, the pictures come from the range cache.
        let asked = server.requests.filter { $0.path.hasPrefix("/art/") }.count
        XCTAssertEqual(try binary(client, "albumart", other).bytes, showImage)
        XCTAssertEqual(server.requests.filter { $0.path.hasPrefix("/art/") }.count, asked, "no second fetch")
    }
}
