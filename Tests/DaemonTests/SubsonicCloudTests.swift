import Foundation
import NimbusHarness
import XCTest

/// Phones streaming cloud songs (nginx WebDAV) through the box's range cache: the first
/// download fills the cache, the second moves no cloud bytes, a seek fetches about what it
/// asks for, a transcode made once is played again without the cloud, and pinned music
/// streams with the server gone.
final class SubsonicCloudTests: XCTestCase {
    var keep: [AnyObject] = []

    override func tearDown() {
        keep.removeAll()
        super.tearDown()
    }

    /// Noise, so the FLAC is as large as music's (about 1.4 MB for 10 s).
    private func addSong(_ path: String, seconds: Int, to share: TemporaryDirectory) throws {
        try FileManager.default.createDirectory(atPath: share.file((path as NSString).deletingLastPathComponent), withIntermediateDirectories: true)
        let wav = share.file(path + ".wav")
        try runTool("sox", ["-n", "-r", "44100", "-c", "2", "-b", "16", wav, "synth", String(seconds), "pinknoise", "vol", "0.4"])
        try runTool("flac", ["-s", "-f", "-T", "ARTIST=Cloud Band", "-T", "ALBUM=\((path as NSString).deletingLastPathComponent)", "-o", share.file(path), wav])
        try FileManager.default.removeItem(atPath: wav)
    }

    /// The body of a download (with `range`, if given).
    private func fetch(_ web: Int, _ id: String, range: String? = nil) throws -> Data {
        let scratch = TemporaryDirectory("nimbus-subsonic-cloud")
        keep.append(scratch)
        let body = scratch.file("body")
        let status = try runTool(
            "curl", ["-s", "-o", body, "-w", "%{http_code}"] + (range.map { ["-H", "Range: bytes=\($0)"] } ?? [])
                + ["http://127.0.0.1:\(web)/rest/download?u=anna&p=sesame&c=t&id=\(id)"])
        XCTAssertEqual(status, range == nil ? "200" : "206")
        return FileManager.default.contents(atPath: body) ?? Data()
    }

    /// A transcoded stream's header lines (lowercased names) and body.
    private func transcoded(_ web: Int, _ id: String) throws -> (headers: [String: String], body: Data) {
        let scratch = TemporaryDirectory("nimbus-subsonic-cloud")
        keep.append(scratch)
        let head = scratch.file("head")
        let body = scratch.file("body")
        let status = try runTool(
            "curl", ["-s", "-D", head, "-o", body, "-w", "%{http_code}", "http://127.0.0.1:\(web)/rest/stream?u=anna&p=sesame&c=t&id=\(id)&format=mp3&maxBitRate=128"])
        XCTAssertEqual(status, "200")
        var headers: [String: String] = [:]
        for line in (try String(contentsOfFile: head, encoding: .utf8)).split(separator: "\r\n") {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        return (headers, FileManager.default.contents(atPath: body) ?? Data())
    }

    func testCloudSongsStreamThroughTheRangeCache() throws {
        try XCTSkipUnless(WebDAVServer.available, "nginx with dav-ext is not installed (scripts/install-deps)")
        let share = TemporaryDirectory("nimbus-subsonic-share")
        try addSong("Album/01.flac", seconds: 10, to: share)
        try addSong("Album/02.flac", seconds: 10, to: share)
        try addSong("Pinned/03.flac", seconds: 2, to: share)
        try addSong("Phone/04.flac", seconds: 6, to: share)
        var server: WebDAVServer? = try WebDAVServer(root: share.path)
        let secrets = TemporaryDirectory("nimbus-secrets")
        let web = freePort()
        let config = """
            web {
                port "\(web)"
            }
            \(SubsonicAPITests.user)
            \(server!.cloudBlock(secrets: secrets))
            """
        let daemon = try ServerProcess(.nimbus, config: config)
        keep += [share, secrets, daemon]
        try daemon.waitForDatabase(songs: 4)
        let listing = try runTool("curl", ["-s", "http://127.0.0.1:\(web)/rest/search3?u=anna&p=sesame&f=json&query="])
        let response = (try JSONSerialization.jsonObject(with: Data(listing.utf8)) as? [String: Any])?["subsonic-response"] as? [String: Any]
        let songs = try XCTUnwrap((response?["searchResult3"] as? [String: Any])?["song"] as? [[String: Any]], listing)
        var ids: [String: String] = [:]
        for song in songs { ids[song["path"] as? String ?? ""] = song["id"] as? String }
        XCTAssertEqual(ids.keys.sorted(), ["dav/Album/01.flac", "dav/Album/02.flac", "dav/Phone/04.flac", "dav/Pinned/03.flac"])
        let first = try XCTUnwrap(FileManager.default.contents(atPath: share.file("Album/01.flac")))

        var before = server!.bytesSent
        XCTAssertEqual(try fetch(web, ids["dav/Album/01.flac"]!), first, "the cloud file's bytes")
        let firstMoved = server!.bytesSent - before
        XCTAssertLessThanOrEqual(firstMoved, first.count, "nothing fetched twice")
        before = server!.bytesSent
        XCTAssertEqual(try fetch(web, ids["dav/Album/01.flac"]!), first, "again, from the cache")
        XCTAssertEqual(server!.bytesSent - before, 0, "a second download moves no cloud bytes")

        // A seek near the end of a song not yet read: about what was asked crosses the network.
        let second = try XCTUnwrap(FileManager.default.contents(atPath: share.file("Album/02.flac")))
        before = server!.bytesSent
        let tail = try fetch(web, ids["dav/Album/02.flac"]!, range: "\(second.count - 100_000)-")
        XCTAssertEqual(tail, second.suffix(100_000))
        XCTAssertLessThan(server!.bytesSent - before, second.count / 2, "a seek fetched the whole song")

        // A phone on mobile data: the first transcode reads the cloud file once and is kept;
        // the second play is that transcode, from disk, with its length, and no cloud bytes.
        let phoneSong = try XCTUnwrap(FileManager.default.contents(atPath: share.file("Phone/04.flac")))
        before = server!.bytesSent
        let made = try transcoded(web, ids["dav/Phone/04.flac"]!)
        XCTAssertEqual(made.headers["content-type"], "audio/mpeg")
        XCTAssertEqual(made.headers["transfer-encoding"], "chunked", "the first play streams while it encodes")
        XCTAssertGreaterThan(made.body.count, 40_000, "six seconds of MP3")
        XCTAssertLessThanOrEqual(server!.bytesSent - before, phoneSong.count + 65_536, "the cloud file read about once")
        before = server!.bytesSent
        // The first encode is committed to the cache just after its last byte went out.
        var again = try transcoded(web, ids["dav/Phone/04.flac"]!)
        _ = waitUntil(timeout: 10) {
            if again.headers["content-length"] != nil { return true }
            again = (try? transcoded(web, ids["dav/Phone/04.flac"]!)) ?? again
            return false
        }
        XCTAssertEqual(again.headers["content-length"], String(made.body.count), "a kept transcode is served with its length")
        XCTAssertEqual(again.body, made.body, "the same transcode")
        XCTAssertEqual(server!.bytesSent - before, 0, "a second transcoded play moves no cloud bytes")

        // Pinned music, and what the cache holds, stream with the server gone.
        let client = try daemon.connect()
        XCTAssertEqual(try client.request("pin dav/Pinned"), ["OK"])
        XCTAssertTrue(waitUntil(timeout: 30) { (try? client.request("listpins"))?.contains("state: completed") == true }, "the pin never completed")
        server = nil
        let pinned = try XCTUnwrap(FileManager.default.contents(atPath: share.file("Pinned/03.flac")))
        XCTAssertEqual(try fetch(web, ids["dav/Pinned/03.flac"]!), pinned, "a pinned song, offline")
        XCTAssertEqual(try fetch(web, ids["dav/Album/01.flac"]!), first, "a cached song, offline")
        XCTAssertEqual(try transcoded(web, ids["dav/Phone/04.flac"]!).body, made.body, "a kept transcode, offline")
        XCTAssertTrue(try client.request("ping") == ["OK"], "the daemon is fine")
    }
}
