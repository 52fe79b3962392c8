import Foundation
import NimbusHarness
import XCTest

/// `load`, `listplaylist`, `listplaylistinfo`, `searchplaylist` and `playlistlength` of a
/// playlist named by URL, served by a local HTTP server: m3u (with `#EXTINF` names), pls and
/// xspf by suffix, the same by `Content-Type` alone (myMPD's webradio favourites), and by their
/// first bytes where the server names neither; compared with Debian's MPD where it reads them.
final class RemotePlaylistTests: XCTestCase {
    private var server: HTTPFileServer!

    override func setUpWithError() throws {
        server = try HTTPFileServer()
        let m3u = """
            #EXTM3U
            #EXTINF:-1,Radio One - News
            http://127.0.0.1:9/one.mp3
            #EXTINF:215,Artist - Song
            song.ogg

            # a comment
            http://127.0.0.1:9/plain.flac
            """
        let pls = """
            [playlist]
            NumberOfEntries=2
            File1=http://127.0.0.1:9/a.mp3
            Title1=Station A
            Length1=-1
            File2=relative/b.ogg
            Title2=Song B
            Length2=187
            Version=2
            """
        let xspf = """
            <?xml version="1.0" encoding="UTF-8"?>
            <playlist version="1" xmlns="http://xspf.org/ns/0/"><trackList>
            <track><location>http://127.0.0.1:9/x.flac</location><title>X &amp; Y</title><creator>Maker</creator>\
            <album>Records</album><trackNum>3</trackNum></track>
            <track><location>../up.mp3</location></track>
            </trackList></playlist>
            """
        try server.put("lists/radio.m3u", m3u)
        try server.put("lists/list.pls", pls)
        try server.put("lists/list.xspf", xspf)
        // MPD leaves XSPF's `duration` (milliseconds) out; Nimbus shows it as the length.
        try server.put("lists/timed.xspf", xspf.replacingOccurrences(of: "<trackNum>3</trackNum>", with: "<duration>61500</duration>"))
        try server.put("store/favourite-1.txt", pls)
        try server.put("store/favourite-2.txt", m3u)
        try server.put("store/favourite-3.txt", xspf)
        try server.put("stream.bin", [UInt8](repeating: 0xFF, count: 32 << 20))
        try server.setRules([
            "/fav/1": ["file": "store/favourite-1.txt", "type": "audio/x-scpls"],
            "/fav/2": ["file": "store/favourite-2.txt", "type": "audio/mpegurl; charset=utf-8"],
            "/fav/3": ["file": "store/favourite-3.txt", "type": "application/xspf+xml"],
            "/plain/4": ["file": "store/favourite-2.txt", "type": "text/plain"],
            "/radio/stream": ["file": "stream.bin", "type": "audio/mpeg"],
            "/moved.m3u": ["redirect": "/lists/radio.m3u"],
            "/gone.m3u": ["status": 404],
        ])
    }

    override func tearDown() {
        server.stop()
        server = nil
    }

    private var url: String { server.url }

    func testLoadingPlaylistsByURLAnswersAsMPD() throws {
        var requests: [String] = []
        for path in ["/lists/radio.m3u", "/lists/list.pls", "/lists/list.xspf", "/fav/1", "/fav/2", "/fav/3"] {
            requests += ["clear", "load \"\(url)\(path)\"", "playlistinfo", "listplaylist \"\(url)\(path)\"",
                "listplaylistinfo \"\(url)\(path)\""]
        }
        requests += ["clear", "load \"\(url)/lists/list.pls\" 1:2", "playlistinfo", "load \"\(url)/lists/radio.m3u\" 0:1 0", "playlist"]
        requests += ["load \"\(url)/gone.m3u\"", "load \"\(url)/radio/stream\""]
        try DifferentialHarness().compare([.exchange("remote playlists", requests)])
    }

    func testAPlaylistIsKnownByItsFirstBytesAndNothingElseIsRead() throws {
        let daemon = try ServerProcess(.nimbus)
        let client = try daemon.connect()
        XCTAssertEqual(try client.request("load \"\(url)/plain/4\""), ["OK"])
        XCTAssertEqual(
            try client.request("playlist"),
            ["0:file: http://127.0.0.1:9/one.mp3", "1:file: \(url)/plain/song.ogg", "2:file: http://127.0.0.1:9/plain.flac", "OK"])
        // An audio stream `load`ed by mistake is refused at its headers: what the server could
        // push into the sockets' buffers before the connection closed, never the stream.
        XCTAssertEqual(try client.request("load \"\(url)/radio/stream\""), ["ACK [50@0] {load} No such playlist"])
        XCTAssertTrue(waitUntil(timeout: 10) { self.server.requests.contains { $0.path == "/radio/stream" } })
        XCTAssertLessThan(server.bytesSent(for: "/radio/stream"), 8 << 20)
        XCTAssertEqual(try client.request("searchplaylist \"\(url)/lists/radio.m3u\" \"(name contains 'song')\""),
            ["file: \(url)/lists/song.ogg", "Name: Artist - Song", "Time: 215", "duration: 215.000", "Pos: 1", "OK"])
        XCTAssertEqual(try client.request("playlistlength \"\(url)/lists/list.pls\""), ["songs: 2", "playtime: 187", "OK"])
        XCTAssertEqual(
            try client.request("listplaylistinfo \"\(url)/lists/timed.xspf\" 0:1"),
            ["file: http://127.0.0.1:9/x.flac", "Title: X & Y", "Artist: Maker", "Album: Records", "Time: 62", "duration: 61.500", "OK"])
        // After a redirect, relative entries are found where the playlist really is (MPD
        // resolves them against the address it asked for).
        XCTAssertEqual(try client.request("listplaylist \"\(url)/moved.m3u\" 1:2"), ["file: \(url)/lists/song.ogg", "OK"])
        // MPD 0.24's range on listplaylist and listplaylistinfo (0.23 has none).
        XCTAssertEqual(try client.request("listplaylistinfo \"\(url)/lists/list.xspf\" 1:"), ["file: \(url)/up.mp3", "OK"])
        XCTAssertEqual(try client.request("listplaylist \"\(url)/lists/list.pls\" 0:1"), ["file: http://127.0.0.1:9/a.mp3", "OK"])
        XCTAssertEqual(try client.request("load \"\(url)/nothing/here.m3u\""), ["ACK [50@0] {load} No such playlist"])
        XCTAssertEqual(try client.request("load \"http://127.0.0.1:9/closed.m3u\"").first?.hasPrefix("ACK [52@0] {load} 127.0.0.1:9: "), true)
        XCTAssertEqual(try client.request("status").first { $0.hasPrefix("playlistlength") }, "playlistlength: 3")
    }

    func testOtherClientsAreServedWhileAPlaylistIsFetched() throws {
        try server.setRules(["/slow.m3u": ["file": "lists/radio.m3u"]])
        let daemon = try ServerProcess(.nimbus)
        let first = try daemon.connect(), second = try daemon.connect()
        try first.send("load \"\(url)/slow.m3u\"\nplaylistlength \"\(url)/slow.m3u\"\n")
        XCTAssertEqual(try second.request("ping"), ["OK"])
        XCTAssertEqual(try first.readResponse(), ["OK"])
        XCTAssertEqual(try first.readResponse(), ["songs: 3", "playtime: 215", "OK"])
    }
}
