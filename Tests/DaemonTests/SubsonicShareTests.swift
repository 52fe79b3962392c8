import Foundation
import NimbusHarness
import XCTest

/// A phone downloading what the box reads from an SMB share and from a podcast feed: the
/// bytes are the files' own, the mounts are music folders of their own.
final class SubsonicShareTests: XCTestCase {
    var keep: [AnyObject] = []

    override func tearDown() {
        keep.removeAll()
        super.tearDown()
    }

    private func daemon() throws -> (ServerProcess, LineClient, web: Int) {
        let web = freePort()
        let daemon = try ServerProcess(.nimbus, config: "web {\n    port \"\(web)\"\n}\n" + SubsonicAPITests.user)
        keep.append(daemon)
        return (daemon, try daemon.connect(), web)
    }

    private func api(_ web: Int, _ path: String) throws -> [String: Any] {
        let text = try runTool("curl", ["-s", "http://127.0.0.1:\(web)/rest/\(path)&u=anna&p=sesame&f=json"])
        return ((try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])?["subsonic-response"] as? [String: Any]) ?? [:]
    }

    /// path → id of every song, from a full search.
    private func songs(_ web: Int) throws -> [String: String] {
        let found = ((try api(web, "search3?query=&songCount=500"))["searchResult3"] as? [String: Any])?["song"] as? [[String: Any]] ?? []
        return Dictionary(found.map { ($0["path"] as? String ?? "", $0["id"] as? String ?? "") }, uniquingKeysWith: { a, _ in a })
    }

    private func download(_ web: Int, _ id: String) throws -> Data {
        let scratch = TemporaryDirectory("nimbus-subsonic-share-get")
        keep.append(scratch)
        _ = try runTool("curl", ["-s", "-f", "-o", scratch.file("body"), "http://127.0.0.1:\(web)/rest/download?u=anna&p=sesame&id=\(id)"])
        return FileManager.default.contents(atPath: scratch.file("body")) ?? Data()
    }

    private func folders(_ web: Int) throws -> [String] {
        ((try api(web, "getMusicFolders?"))["musicFolders"] as? [String: Any])?["musicFolder"].flatMap { $0 as? [[String: Any]] }?
            .compactMap { $0["name"] as? String } ?? []
    }

    func testSMBSongsDownloadAsTheirFiles() throws {
        try XCTSkipUnless(SambaServer.available, "smbd is not installed (scripts/install-deps) or not root")
        let share = TemporaryDirectory("nimbus-subsonic-smb")
        try FileManager.default.createDirectory(atPath: share.file("Band/Album"), withIntermediateDirectories: true)
        try runTool("sox", ["-n", "-r", "44100", "-c", "2", "-b", "16", share.file("Band/Album/01.flac"), "synth", "5", "pinknoise", "vol", "0.3"])
        let server = try SambaServer(root: share.path)
        keep += [share, server]
        let (_, client, web) = try daemon()
        XCTAssertEqual(try client.request("mount nas \(server.url(password: server.password))"), ["OK"])
        XCTAssertTrue(waitUntil(timeout: 60) { (try? self.songs(web))?["nas/Band/Album/01.flac"] != nil }, "the share's song never showed")
        let id = try XCTUnwrap(try songs(web)["nas/Band/Album/01.flac"])
        XCTAssertEqual(try download(web, id), FileManager.default.contents(atPath: share.file("Band/Album/01.flac")), "over SMB")
        XCTAssertTrue(try folders(web).contains("nas"), "the share is a music folder")
    }

    func testAPodcastEpisodeDownloadsAsItsFile() throws {
        let feed = try HTTPFileServer()
        let scratch = TemporaryDirectory("nimbus-subsonic-podcast")
        keep += [feed, scratch]
        try runTool("sox", ["-n", "-r", "44100", "-c", "1", scratch.file("episode.wav"), "synth", "3", "sine", "440"])
        try runTool("lame", ["--quiet", "-b", "64", scratch.file("episode.wav"), scratch.file("episode.mp3")])
        let audio = Array(try Data(contentsOf: URL(fileURLWithPath: scratch.file("episode.mp3"))))
        try feed.put("/media/1.mp3", audio)
        try feed.put("/feed.xml", """
            <?xml version="1.0" encoding="UTF-8"?>
            <rss version="2.0"><channel><title>Talk</title>
            <item><guid>t-1</guid><title>First</title><pubDate>Mon, 30 Nov 2026 07:00:00 +0000</pubDate>
            <enclosure url="media/1.mp3" type="audio/mpeg"/></item></channel></rss>
            """)
        let (_, client, web) = try daemon()
        XCTAssertEqual(try client.request("podcastsubscribe \"\(feed.url)/feed.xml\""), ["podcast: Talk", "OK"])
        XCTAssertTrue(waitUntil(timeout: 30) { (try? self.songs(web))?.keys.contains { $0.hasPrefix("podcasts/Talk/") } == true }, "no episode")
        let (path, id) = try XCTUnwrap(try songs(web).first { $0.key.hasPrefix("podcasts/Talk/") })
        XCTAssertEqual(try download(web, id), Data(audio), "\(path) through the range cache")
        XCTAssertTrue(try folders(web).contains("podcasts"), "podcasts are a music folder")
    }
}
