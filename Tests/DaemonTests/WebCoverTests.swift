import Foundation
import NimbusHarness
import XCTest

/// Covers over HTTP as curl sees them: a 1200-pixel scan arrives as a JPEG of the size asked
/// for (of a song, its folder, or an album named by its tags), with an ETag and a long
/// `Cache-Control`; an album without a cover gets the one-pixel "none"; nonsense gets a 400;
/// and where a password guards reading, HTTP hands out no cover at all.
final class WebCoverTests: XCTestCase {
    private var keep: [AnyObject] = []

    override func tearDown() {
        keep.removeAll()
        super.tearDown()
    }

    private func daemon(_ extra: String = "", password: String? = nil) throws -> (ServerProcess, Int) {
        let scratch = TemporaryDirectory("nimbus-web-covers")
        keep.append(scratch)
        let music = try Fixtures.freshLibrary(in: scratch.path)
        try runTool("ffmpeg", ["-loglevel", "error", "-y", "-f", "lavfi", "-i", "testsrc=size=1200x900", "-frames:v", "1",
            music + "/Alpha Band/First Light/cover.png"])
        let port = freePort()
        let daemon = try ServerProcess(.nimbus, config: "web {\n    port \"\(port)\"\n}\n" + extra, musicDirectory: music)
        keep.append(daemon)
        if let password {
            let client = try daemon.connect()
            XCTAssertEqual(try client.request("password \(password)"), ["OK"])
            XCTAssertTrue(waitUntil(timeout: 30) { (try? client.request("stats"))?.contains("songs: 12") == true })
        } else {
            try daemon.waitForDatabase(songs: 12)
        }
        return (daemon, port)
    }

    /// Status, headers (lowercased) and the body, saved to a file.
    private func get(_ port: Int, _ path: String, _ options: [String] = []) throws -> (status: Int, headers: String, body: String) {
        let scratch = TemporaryDirectory("nimbus-cover-get")
        keep.append(scratch)
        let headers = scratch.write("headers", ""), body = scratch.file("body")
        let status = try runTool("curl", ["-s", "-o", body, "-D", headers, "-w", "%{http_code}"] + options + ["http://127.0.0.1:\(port)\(path)"])
        return (Int(status) ?? 0, ((try? String(contentsOfFile: headers, encoding: .utf8)) ?? "").lowercased(), body)
    }

    /// Width and height of a picture file, as ffprobe reads it.
    private func dimensions(_ file: String) throws -> [Int] {
        try runTool("ffprobe", ["-v", "error", "-show_entries", "stream=width,height", "-of", "csv=p=0", file])
            .trimmingCharacters(in: .whitespacesAndNewlines).split(separator: ",").compactMap { Int($0) }
    }

    private func size(_ file: String) -> Int { ((try? FileManager.default.attributesOfItem(atPath: file)[.size]) as? Int) ?? -1 }

    func testCoversArriveScaledAndCached() throws {
        try XCTSkipUnless(FileManager.default.fileExists(atPath: "/usr/bin/curl"), "curl is not installed")
        let (_, port) = try daemon()
        let song = try get(port, "/cover?uri=Alpha%20Band%2FFirst%20Light%2F03%20-%20Dusk.wav&size=256")
        XCTAssertEqual(song.status, 200)
        XCTAssertTrue(song.headers.contains("content-type: image/jpeg"), song.headers)
        XCTAssertTrue(song.headers.contains("cache-control: max-age=604800"), song.headers)
        XCTAssertEqual(try dimensions(song.body), [256, 192], "the longer side is the size asked for, the shape kept")
        XCTAssertLessThan(size(song.body), 30_000)
        let etag = try XCTUnwrap(song.headers.split(separator: "\r\n").first { $0.hasPrefix("etag: ") }).dropFirst(6)
        XCTAssertEqual(try get(port, "/cover?uri=Alpha%20Band%2FFirst%20Light%2F03%20-%20Dusk.wav&size=256", ["-H", "If-None-Match: \(etag)"]).status, 304)

        let album = try get(port, "/cover?album=First%20Light&artist=Alpha%20Band&size=100")
        XCTAssertEqual(try dimensions(album.body), [128, 96], "an album by its tags; sizes round up to 64, 128, 256, 512, 1024")
        let folder = try get(port, "/cover?uri=Alpha%20Band%2FFirst%20Light&size=64")
        XCTAssertEqual(try dimensions(folder.body), [64, 48], "a folder's cover")
        let embedded = try get(port, "/cover?album=Second%20Wind&artist=Alpha%20Band&size=512")
        XCTAssertTrue(embedded.headers.contains("content-type:"), embedded.headers)

        for path in ["/cover?album=No%20Such%20Album&size=256", "/cover?uri=..%2F..%2Fetc%2Fpasswd&size=256", "/cover?uri=Beta%2Fnothing.mp3"] {
            let none = try get(port, path)
            XCTAssertEqual(none.status, 200, path)
            XCTAssertTrue(none.headers.contains("content-type: image/svg+xml"), "one pixel says there is none: \(path)")
        }
        for path in ["/cover", "/cover?size=256", "/cover?uri=x&size=99999", "/cover?uri=x&size=0"] {
            XCTAssertEqual(try get(port, path).status, 400, path)
        }
        let about = try get(port, "/about.json")
        let object = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: about.body))) as? [String: Any])
        XCTAssertFalse((object["version"] as? String ?? "").isEmpty, "\(object)")
    }

    func testAPasswordKeepsCoversOffHTTP() throws {
        try XCTSkipUnless(FileManager.default.fileExists(atPath: "/usr/bin/curl"), "curl is not installed")
        let (_, port) = try daemon("password \"letmein@read\"\ndefault_permissions \"\"", password: "letmein")
        let cover = try get(port, "/cover?uri=Alpha%20Band%2FFirst%20Light%2F03%20-%20Dusk.wav&size=256")
        XCTAssertEqual(cover.status, 200)
        XCTAssertTrue(cover.headers.contains("content-type: image/svg+xml"), "HTTP carries no password: no cover, \(cover.headers)")
    }
}
