import Foundation
import NimbusHarness
import XCTest

/// A plain URL in the queue gets its tags and length as MPD 0.24's remote tag scan gives them:
/// read in the background through the range cache, every queue entry of it updated, `playlist`
/// idlers woken; `status` then has the song's duration while it plays.
final class RemoteTagTests: XCTestCase {
    private static let formats: [(suffix: String, codec: [String])] = [
        ("mp3", ["-c:a", "libmp3lame", "-b:a", "64k"]), ("flac", ["-c:a", "flac"]), ("ogg", ["-c:a", "libvorbis"]),
        ("opus", ["-c:a", "libopus"]), ("m4a", ["-c:a", "aac", "-b:a", "64k"]),
    ]

    private func makeSongs(on server: HTTPFileServer) throws {
        let work = TemporaryDirectory("nimbus-remote-tags")
        let wav = work.file("source.wav")
        try runTool("sox", ["-n", "-r", "48000", "-c", "2", "-b", "16", wav, "synth", "3", "sine", "440", "vol", "0.5"])
        for (suffix, codec) in Self.formats {
            let out = work.file("song.\(suffix)")
            let tags = ["-metadata", "title=Remote \(suffix)", "-metadata", "artist=Web Artist", "-metadata", "album=Served"]
            try runTool("ffmpeg", ["-hide_banner", "-loglevel", "error", "-y", "-i", wav] + codec + tags + [out])
            try server.put("music/song.\(suffix)", Array(try Data(contentsOf: URL(fileURLWithPath: out))))
        }
        // Served without a suffix: the format comes from its Content-Type.
        try server.setRules(["/stream/7": ["file": "music/song.mp3", "type": "audio/mpeg"]])
    }

    func testURLsInTheQueueGetTagsAndDurationAndWakePlaylistIdlers() throws {
        let server = try HTTPFileServer()
        defer { server.stop() }
        try makeSongs(on: server)
        let daemon = try ServerProcess(.nimbus)
        let client = try daemon.connect(), idler = try daemon.connect(timeout: 20)
        try idler.send("idle playlist\nnoidle\n")
        _ = try idler.readResponse()
        let urls = Self.formats.map { "\(server.url)/music/song.\($0.suffix)" } + ["\(server.url)/stream/7"]
        for url in urls { XCTAssertEqual(try client.request("add \"\(url)\""), ["OK"]) }
        // The adds woke `playlist`; the tags arriving wake it again.
        XCTAssertEqual(try idler.request("idle playlist"), ["changed: playlist", "OK"])
        XCTAssertTrue(waitUntil(timeout: 20) {
            ((try? client.request("playlistinfo")) ?? []).filter { $0.hasPrefix("Title: ") }.count == urls.count
        }, "\((try? client.request("playlistinfo")) ?? [])")
        let info = try client.request("playlistinfo")
        for (index, (suffix, _)) in Self.formats.enumerated() {
            let record = Self.record(info, position: index)
            XCTAssertTrue(record.contains("Title: Remote \(suffix)"), "\(suffix): \(record)")
            XCTAssertTrue(record.contains("Artist: Web Artist"), "\(suffix): \(record)")
            XCTAssertTrue(record.contains("Time: 3"), "\(suffix): \(record)")
            XCTAssertTrue(record.contains { $0.hasPrefix("duration: 3.0") || $0.hasPrefix("duration: 2.99") }, "\(suffix): \(record)")
        }
        XCTAssertTrue(Self.record(info, position: 5).contains("Title: Remote mp3"))

        // Played, the length is in `status` (clients draw their progress bar from it).
        XCTAssertEqual(try client.request("play 1"), ["OK"])
        XCTAssertTrue(client.waitForStatus("state: play"))
        let status = try client.request("status")
        XCTAssertTrue(status.contains { $0.hasPrefix("duration: 3.0") || $0.hasPrefix("duration: 2.99") }, "\(status)")
        XCTAssertTrue(status.contains { $0.hasPrefix("time: ") && $0.hasSuffix(":3") }, "\(status)")

        // Queued again, a URL's tags are known at once: no second scan.
        let path = "/music/song.ogg"
        let before = server.requests.filter { $0.path == path }.count
        XCTAssertEqual(try client.request("addid \"\(urls[2])\" 0").first?.hasPrefix("Id: "), true)
        XCTAssertTrue(Self.record(try client.request("playlistinfo 0"), position: 0).contains("Title: Remote ogg"))
        XCTAssertEqual(server.requests.filter { $0.path == path }.count, before)
    }

    private static func record(_ lines: [String], position: Int) -> [String] {
        var records: [[String]] = [[]]
        for line in lines where line != "OK" {
            if line.hasPrefix("file: "), !records[records.count - 1].isEmpty { records.append([]) }
            records[records.count - 1].append(line)
        }
        return position < records.count ? records[position] : []
    }
}
