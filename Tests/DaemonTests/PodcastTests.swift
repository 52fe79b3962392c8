import Foundation
import NimbusHarness
import XCTest

/// Podcasts end to end, against feeds and episodes served by the test's own HTTP server:
/// subscribe, the show as a library folder with the feed's tags, an episode played through
/// the range cache, a refresh that is a conditional request and one that brings a new
/// episode, a feed that turns into a 404 (the episodes stay, `error:` says why), the
/// subscriptions across a restart, and what is refused.
final class PodcastTests: XCTestCase {
    private var keep: [AnyObject] = []

    override func tearDown() {
        keep.removeAll()
        super.tearDown()
    }

    private func feed(_ server: HTTPFileServer, items: [(guid: String, title: String, file: String, date: String, duration: String?)]) -> String {
        var text = """
            <?xml version="1.0" encoding="UTF-8"?>
            <rss version="2.0" xmlns:itunes="http://www.itunes.com/dtds/podcast-1.0.dtd"><channel>
            <title>Tea &amp; Talk</title><itunes:author>Ann Author</itunes:author>
            """
        for item in items {
            text += "<item><guid>\(item.guid)</guid><title>\(item.title)</title><pubDate>\(item.date)</pubDate>"
            if let duration = item.duration { text += "<itunes:duration>\(duration)</itunes:duration>" }
            text += "<description><![CDATA[<p>About <b>\(item.title)</b></p>]]></description>"
            text += "<enclosure url=\"\(item.file)\" type=\"audio/mpeg\"/></item>"
        }
        return text + "</channel></rss>"
    }

    private func field(_ name: String, _ lines: [String]) -> String? {
        lines.first { $0.hasPrefix(name + ": ") }.map { String($0.dropFirst(name.count + 2)) }
    }

    /// A server with two episodes of `seconds` of audio and a feed naming them (Green the
    /// newest, with `greenDuration`; Black with `blackDuration`); answers the server and the audio.
    private func showServer(seconds: Int, greenDuration: String?, blackDuration: String?) throws -> (HTTPFileServer, [UInt8]) {
        let server = try HTTPFileServer()
        keep.append(server)
        let scratch = TemporaryDirectory("nimbus-podcast")
        keep.append(scratch)
        try runTool("sox", ["-n", "-r", "44100", "-c", "1", scratch.file("episode.wav"), "synth", "\(seconds)", "sine", "440"])
        try runTool("lame", ["--quiet", "-b", "64", scratch.file("episode.wav"), scratch.file("episode.mp3")])
        let audio = Array(try Data(contentsOf: URL(fileURLWithPath: scratch.file("episode.mp3"))))
        try server.put("/media/1.mp3", audio)
        try server.put("/media/2.mp3", audio)
        try server.put("/feed.xml", feed(server, items: [
            ("tea-2", "Green", "media/2.mp3", "Tue, 01 Dec 2026 07:00:00 +0000", greenDuration),
            ("tea-1", "Black", "media/1.mp3", "Mon, 30 Nov 2026 07:00:00 +0000", blackDuration),
        ]))
        return (server, audio)
    }

    func testSubscribeListPlayRefreshAndRestart() throws {
        let (server, audio) = try showServer(seconds: 5, greenDuration: "1:05", blackDuration: nil)
        let daemon = try ServerProcess(.nimbus, config: "", musicDirectory: try Fixtures.library())
        keep.append(daemon)
        try daemon.waitForDatabase(songs: 12)
        let client = try daemon.connect()
        XCTAssertEqual(try client.request("podcastsubscribe \"\(server.url)/feed.xml\""), ["podcast: Tea & Talk", "OK"])
        try daemon.waitForDatabase(songs: 14)
        XCTAssertEqual(
            try client.request("lsinfo podcasts").filter { $0.hasPrefix("directory: ") }, ["directory: podcasts/Tea & Talk"])
        let green = try client.request("lsinfo \"podcasts/Tea & Talk/2026-12-01 - Green.mp3\"")
        XCTAssertEqual(field("Title", green), "Green")
        XCTAssertEqual(field("Album", green), "Tea & Talk")
        XCTAssertEqual(field("Artist", green), "Ann Author")
        XCTAssertEqual(field("Date", green), "2026-12-01")
        XCTAssertEqual(field("Genre", green), "Podcast")
        XCTAssertEqual(field("duration", green), "65.000", "itunes:duration")
        let black = try client.request("lsinfo \"podcasts/Tea & Talk/2026-11-30 - Black.mp3\"")
        XCTAssertEqual(Double(field("duration", black) ?? "") ?? 0, 5, accuracy: 0.2, "no itunes:duration: read from the audio")
        XCTAssertEqual(try client.request("find genre Podcast").filter { $0.hasPrefix("file: ") }.count, 2)
        // Kept offline: both episodes downloaded whole into the range cache.
        XCTAssertEqual(try client.request("pin \"podcasts/Tea & Talk\""), ["OK"])
        XCTAssertTrue(waitUntil(timeout: 20) { (try? client.request("listpins"))?.contains("state: completed") == true },
            "\((try? client.request("listpins")) ?? [])")
        XCTAssertTrue(server.requests.contains { $0.path == "/media/2.mp3" && $0.bytes >= audio.count - 1 } || server.bytesSent(for: "/media/2.mp3") >= audio.count,
            "the whole of an episode fetched")
        XCTAssertEqual(try client.request("unpin \"podcasts/Tea & Talk\""), ["OK"])

        var list = try client.request("listpodcasts")
        XCTAssertEqual(field("podcast", list), "Tea & Talk")
        XCTAssertEqual(field("episodes", list), "2")
        XCTAssertEqual(field("new", list), "0", "what was there when subscribing is not new")
        XCTAssertNil(field("error", list))

        XCTAssertEqual(try client.request("add \"podcasts/Tea & Talk/2026-11-30 - Black.mp3\""), ["OK"])
        XCTAssertEqual(try client.request("play"), ["OK"])
        XCTAssertTrue(client.waitForStatus("state: play"))
        XCTAssertTrue(client.waitForStatus("state: stop", timeout: 15), "the episode plays to its end")
        XCTAssertTrue(server.requests.contains { $0.path == "/media/1.mp3" && $0.range != nil }, "through byte ranges")

        // Unchanged: a conditional request and nothing more. Then a new episode.
        XCTAssertEqual(try client.request("podcastrefresh"), ["OK"])
        XCTAssertTrue(server.requests.last { $0.path == "/feed.xml" }?.conditional == true)
        XCTAssertEqual(server.requests.last { $0.path == "/feed.xml" }?.status, 304)
        try server.put("/media/3.mp3", audio)
        try server.put("/feed.xml", feed(server, items: [
            ("tea-3", "Oolong", "media/3.mp3", "Wed, 02 Dec 2026 07:00:00 +0000", "5"),
            ("tea-2", "Green", "media/2.mp3", "Tue, 01 Dec 2026 07:00:00 +0000", "1:05"),
            ("tea-1", "Black", "media/1.mp3", "Mon, 30 Nov 2026 07:00:00 +0000", nil),
        ]))
        XCTAssertEqual(try client.request("podcastrefresh \"Tea & Talk\""), ["OK"])
        try daemon.waitForDatabase(songs: 15)
        list = try client.request("listpodcasts")
        XCTAssertEqual(field("episodes", list), "3")
        XCTAssertEqual(field("new", list), "1", "Oolong arrived after subscribing")

        // The newest episode kept offline, and as the show moves on, only the newest.
        XCTAssertEqual(try client.request("podcastkeep \"Tea & Talk\" 1"), ["OK"])
        XCTAssertEqual(field("keep", try client.request("listpodcasts")), "1")
        XCTAssertTrue(waitUntil(timeout: 20) {
            let pins = (try? client.request("listpins")) ?? []
            return pins.contains("pin: podcasts/Tea & Talk/2026-12-02 - Oolong.mp3") && pins.contains("state: completed")
        }, "\((try? client.request("listpins")) ?? [])")
        XCTAssertEqual(try client.request("podcastkeep \"Tea & Talk\" 0"), ["OK"])
        XCTAssertEqual(try client.request("listpins"), ["OK"], "its own pins go when keeping stops")

        // The feed breaks: the show keeps its episodes and says why.
        try server.setRules(["/feed.xml": ["status": 404]])
        XCTAssertEqual(try client.request("podcastrefresh"), ["OK"])
        list = try client.request("listpodcasts")
        XCTAssertEqual(field("episodes", list), "3")
        XCTAssertTrue(field("error", list)?.contains("404") == true, "\(list)")

        try daemon.restart()
        let again = try daemon.connect()
        XCTAssertEqual(field("episodes", try again.request("listpodcasts")), "3", "kept across a restart")
        try daemon.waitForDatabase(songs: 15)

        XCTAssertEqual(try again.request("podcastsubscribe \"\(server.url)/nothing.xml\"").last?.hasPrefix("ACK [52@0] {podcastsubscribe}"), true)
        XCTAssertEqual(try again.request("podcastsubscribe \"file:///etc/passwd\"").last?.hasPrefix("ACK [52@0] {podcastsubscribe} not an http(s) address"), true)
        XCTAssertEqual(try again.request("podcastunsubscribe Nope"), ["ACK [50@0] {podcastunsubscribe} no such podcast: Nope"])
        XCTAssertEqual(try again.request("podcastunsubscribe \"Tea & Talk\""), ["OK"])
        try daemon.waitForDatabase(songs: 12)
        XCTAssertEqual(try again.request("listpodcasts"), ["OK"])
    }

    func testTheCommandLineImportsAndExportsOPML() throws {
        let server = try HTTPFileServer()
        keep.append(server)
        let scratch = TemporaryDirectory("nimbus-podcast-cli")
        keep.append(scratch)
        try server.put("/a.xml", "<rss><channel><title>Show A</title><item><guid>1</guid><title>One</title>"
            + "<itunes:duration xmlns:itunes=\"http://www.itunes.com/dtds/podcast-1.0.dtd\">60</itunes:duration>"
            + "<enclosure url=\"1.mp3\"/></item></channel></rss>")
        try server.put("/b.xml", "<rss><channel><title>Show B</title></channel></rss>")
        // Show A comes gzipped (when asked), Show B's address has moved (a redirect).
        try server.setRules(["/a.xml": ["gzip": true], "/moved.xml": ["redirect": "/b.xml"]])
        let daemon = try ServerProcess(.nimbus, config: "", musicDirectory: try Fixtures.library())
        keep.append(daemon)
        let nimbus = ServerProcess.buildDirectory + "/nimbus"
        let place = ["--host", "127.0.0.1", "--port", "\(daemon.port)"]
        let opml = scratch.write("feeds.opml", """
            <?xml version="1.0"?><opml version="2.0"><head/><body><outline text="Group">
            <outline type="rss" text="A" xmlUrl="\(server.url)/a.xml"/><outline type="rss" text="B" xmlUrl="\(server.url)/moved.xml"/>
            </outline></body></opml>
            """)
        let imported = try runTool(nimbus, ["podcasts", "import", opml] + place)
        XCTAssertTrue(imported.contains("subscribed: Show A") && imported.contains("subscribed: Show B"), imported)
        let listed = try runTool(nimbus, ["podcasts", "list"] + place)
        XCTAssertTrue(listed.contains("Show A: 1 episodes, 0 new"), listed)
        let exported = try runTool(nimbus, ["podcasts", "export"] + place)
        XCTAssertTrue(exported.contains("xmlUrl=\"\(server.url)/a.xml\"") && exported.contains("text=\"Show B\""), exported)
        XCTAssertTrue(server.requests.contains { $0.path == "/moved.xml" && $0.status == 302 }, "B was reached through its redirect")
        XCTAssertTrue(try runTool(nimbus, ["podcasts", "remove", "Show B"] + place).contains("unsubscribed"))
        XCTAssertThrowsError(try runTool(nimbus, ["podcasts", "add", "\(server.url)/missing.xml"] + place), "a feed that is not there fails")
        XCTAssertEqual(try daemon.connect().request("listpodcasts").filter { $0.hasPrefix("podcast: ") }, ["podcast: Show A"])
    }

    /// `podcastkeep … forget`: an episode heard to its end is marked played (podcast episodes
    /// get resume positions whatever their length), leaves the cache, and the next newest one
    /// is kept in its place.
    func testAHeardEpisodeIsForgottenAndTheNextOneKept() throws {
        let (server, _) = try showServer(seconds: 3, greenDuration: "3", blackDuration: "3")
        let daemon = try ServerProcess(.nimbus, config: "resume_min_length \"600\"", musicDirectory: try Fixtures.library())
        keep.append(daemon)
        try daemon.waitForDatabase(songs: 12)
        let client = try daemon.connect()
        XCTAssertEqual(try client.request("podcastsubscribe \"\(server.url)/feed.xml\""), ["podcast: Tea & Talk", "OK"])
        try daemon.waitForDatabase(songs: 14)
        XCTAssertEqual(try client.request("podcastkeep \"Tea & Talk\" 1 pleasekeep"), ["ACK [2@0] {podcastkeep} Expected \"forget\": \"pleasekeep\""])
        XCTAssertEqual(try client.request("podcastkeep \"Tea & Talk\" 1 forget"), ["OK"])
        XCTAssertEqual(field("forget", try client.request("listpodcasts")), "1")
        let green = "podcasts/Tea & Talk/2026-12-01 - Green.mp3", black = "podcasts/Tea & Talk/2026-11-30 - Black.mp3"
        XCTAssertTrue(waitUntil(timeout: 20) {
            let pins = (try? client.request("listpins")) ?? []
            return pins.contains("pin: \(green)") && pins.contains("state: completed")
        })
        XCTAssertEqual(try client.request("add \"\(green)\""), ["OK"])
        XCTAssertEqual(try client.request("play"), ["OK"])
        XCTAssertTrue(client.waitForStatus("state: stop", timeout: 15))
        XCTAssertTrue(waitUntil(timeout: 10) {
            ((try? client.request("sticker get song \"\(green)\" played")) ?? []).first?.hasPrefix("sticker: played=") == true
        }, "heard to the end: played")
        XCTAssertTrue(waitUntil(timeout: 20) {
            let pins = (try? client.request("listpins")) ?? []
            return pins.contains("pin: \(black)") && !pins.contains("pin: \(green)")
        }, "the next newest is kept instead: \((try? client.request("listpins")) ?? [])")
    }
}
