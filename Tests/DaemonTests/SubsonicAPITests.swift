import Foundation
import NimbusHarness
import XCTest

/// The Subsonic API as phones meet it: real client libraries from PyPI (py-opensonic,
/// knuckles) and curl against a running nimbusd — every answer checked against the
/// OpenSubsonic definitions, a Symfonium-style full sync with the same ids after a restart
/// and an update, the files' own bytes streamed, stars and playlists shared with MPD clients.
final class SubsonicAPITests: XCTestCase {
    var keep: [AnyObject] = []

    override func tearDown() {
        keep.removeAll()
        super.tearDown()
    }

    static let user = "subsonic_user {\n    name \"anna\"\n    password \"sesame\"\n    permissions \"read,add,player,control\"\n}\n"
    static var python: String { Fixtures.repositoryRoot + "/.build/subsonic-clients/bin/python3" }
    static var script: String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Scripts/subsonic_clients.py").path
    }

    /// A daemon on the fixture library with the page (and so `/rest/`) on `web` and one user.
    func daemon(_ extra: String = "") throws -> (ServerProcess, web: Int, music: String) {
        let scratch = TemporaryDirectory("nimbus-subsonic")
        keep.append(scratch)
        let music = try Fixtures.freshLibrary(in: scratch.path)
        let web = freePort()
        let daemon = try ServerProcess(.nimbus, config: "web {\n    port \"\(web)\"\n}\n" + Self.user + extra, musicDirectory: music)
        keep.append(daemon)
        try daemon.waitForDatabase(songs: 12)
        return (daemon, web, music)
    }

    func testRealClientsSeeTheLibraryAndKeepTheirIdsAcrossARestart() throws {
        try XCTSkipUnless(FileManager.default.isExecutableFile(atPath: Self.python), "scripts/install-python-clients has not run")
        let (daemon, web, music) = try daemon()
        let ids = TemporaryDirectory("nimbus-subsonic-ids")
        keep.append(ids)
        let output = try runTool(Self.python, [Self.script, String(web), "anna", "sesame", music, String(daemon.port), ids.file("first.json")])
        XCTAssertTrue(output.hasSuffix("ALL OK\n"), output)
        XCTAssertFalse(daemon.log.contains("sesame"), "a password reached the log")
        XCTAssertFalse(daemon.log.contains("u=anna"), "a query string reached the log")

        try daemon.restart()
        let client = try daemon.connect()
        XCTAssertEqual(try client.request("update"), ["updating_db: 1", "OK"])
        XCTAssertTrue(waitUntil(timeout: 30) { (try? client.request("status"))?.contains { $0.hasPrefix("updating_db") } == false })
        _ = try runTool(Self.python, [Self.script, String(web), "anna", "sesame", music, String(daemon.port), ids.file("again.json"), "sync"])
        let first = try String(contentsOfFile: ids.file("first.json"), encoding: .utf8)
        XCTAssertEqual(try String(contentsOfFile: ids.file("again.json"), encoding: .utf8), first, "ids changed across a restart and an update")
        // Pinned: the id of a file is fixed forever (see SubsonicIDs).
        XCTAssertTrue(first.contains("\"s45aabf16c2c18465\""), "the id of broken/truncated.flac changed: \(first)")
    }

    /// Status, lower-cased headers and body of one curl request.
    func curl(_ url: String, _ options: [String] = []) throws -> (status: Int, headers: String, body: Data) {
        let scratch = TemporaryDirectory("nimbus-subsonic-curl")
        keep.append(scratch)
        let headers = scratch.write("headers", ""), body = scratch.write("body", "")
        let status = try runTool("curl", ["-s", "-o", body, "-D", headers, "-w", "%{http_code}"] + options + [url])
        return (
            Int(status) ?? 0, ((try? String(contentsOfFile: headers, encoding: .utf8)) ?? "").lowercased(),
            FileManager.default.contents(atPath: body) ?? Data()
        )
    }

    func json(_ data: Data) -> [String: Any] {
        ((try? JSONSerialization.jsonObject(with: data)) as? [String: Any])?["subsonic-response"] as? [String: Any] ?? [:]
    }

    func code(_ data: Data) -> Int? { (json(data)["error"] as? [String: Any])?["code"] as? Int }

    func testItsOwnPortBadInputAndUsersAddedAtRunTime() throws {
        let api = freePort()
        let (daemon, web, _) = try daemon("subsonic {\n    port \"\(api)\"\n}\n")
        let base = "http://127.0.0.1:\(api)/rest/"
        let auth = "u=anna&p=sesame&c=curl&f=json"
        XCTAssertEqual(try curl(base + "ping?" + auth).status, 200)
        XCTAssertEqual(json(try curl("http://127.0.0.1:\(web)/rest/ping.view?" + auth).body)["status"] as? String, "ok", "also on the page's port")
        XCTAssertEqual(try curl("http://127.0.0.1:\(api)/").status, 404, "the API's own port serves no page")
        XCTAssertEqual(code(try curl(base + "getSong?" + auth + "&id=..%2F..%2Fetc%2Fpasswd").body), 70)
        XCTAssertEqual(code(try curl(base + "getSong?" + auth + "&id=a&id=b").body), 10, "a repeated parameter")
        XCTAssertEqual(code(try curl(base + "search3?" + auth + "&query=%FF%FE").body), nil, "non-UTF-8 is searched, not a crash")
        let unknown = try curl(base + "noSuchThing?" + auth)
        XCTAssertEqual(unknown.status, 404)
        XCTAssertEqual(json(unknown.body)["status"] as? String, "failed")
        // A megabyte of form body is refused before it is read whole; the daemon goes on.
        let scratch = TemporaryDirectory("nimbus-subsonic-body")
        keep.append(scratch)
        let big = scratch.write("body", auth + "&query=" + String(repeating: "x", count: 2 << 20))
        XCTAssertEqual(try curl(base + "search3", ["--data-binary", "@" + big, "-H", "Content-Type: application/x-www-form-urlencoded"]).status, 413)
        // A 60 kB query string is more than the 8 KiB of headers the server reads: the
        // connection is refused (curl sees an empty reply) and nothing else is disturbed.
        let long = scratch.write("long.curl", "url = \"\(base)search3?\(auth)&query=\(String(repeating: "y", count: 60_000))\"\n")
        XCTAssertThrowsError(try runTool("curl", ["-s", "-f", "-o", "/dev/null", "-K", long]))
        let preflight = try curl(base + "ping", ["-X", "OPTIONS", "-H", "Origin: http://phone.example", "-H", "Access-Control-Request-Method: GET"])
        XCTAssertTrue([200, 204].contains(preflight.status), "CORS preflight: \(preflight.status)")
        XCTAssertTrue(preflight.headers.contains("access-control-allow-origin: *"), preflight.headers)
        XCTAssertEqual(json(try curl(base + "ping?" + auth).body)["status"] as? String, "ok", "still answering")

        // Users and keys made on the MPD port (admin there), kept in a 0600 file, across a restart.
        let client = try daemon.connect()
        XCTAssertEqual(try client.request("subsonicuseradd bob \"hunter 2\" read"), ["OK"])
        XCTAssertEqual(json(try curl(base + "ping?u=bob&p=hunter%202&f=json").body)["status"] as? String, "ok")
        XCTAssertEqual(code(try curl(base + "star?u=bob&p=hunter%202&f=json&id=s0000000000000000").body), 50, "read only")
        let made = try client.request("subsonickeyadd bob phone")
        let key = try XCTUnwrap(made.first { $0.hasPrefix("key: ") }).dropFirst(5)
        let id = try XCTUnwrap(made.first { $0.hasPrefix("id: ") }).dropFirst(4)
        let token = try curl(base + "tokenInfo?apiKey=\(key)&f=json")
        XCTAssertEqual((json(token.body)["tokenInfo"] as? [String: Any])?["username"] as? String, "bob")
        XCTAssertFalse(try client.request("subsonicusers").joined().contains(String(key)), "a key is shown once")
        XCTAssertTrue(try client.request("subsonicuserdelete anna").last?.hasPrefix("ACK") == true, "a configured user stays")
        let file = daemon.directory.file("state.subsonic")
        let mode = try XCTUnwrap(FileManager.default.attributesOfItem(atPath: file)[.posixPermissions] as? Int)
        XCTAssertEqual(mode & 0o077, 0, "the users file is private")
        XCTAssertFalse(try String(contentsOfFile: file, encoding: .utf8).contains(String(key)), "only the key's hash is kept")
        XCTAssertFalse(daemon.log.contains("hunter"), "a password reached the log")
        try daemon.restart()
        XCTAssertEqual(json(try curl(base + "ping?apiKey=\(key)&f=json").body)["status"] as? String, "ok", "the key survived a restart")
        let again = try daemon.connect()
        XCTAssertEqual(try again.request("subsonickeydelete \(id)"), ["OK"])
        XCTAssertEqual(code(try curl(base + "ping?apiKey=\(key)&f=json").body), 44, "a revoked key")
        XCTAssertEqual(try again.request("subsonicuserdelete bob"), ["OK"])
        XCTAssertEqual(code(try curl(base + "ping?u=bob&p=hunter%202&f=json").body), 40)
    }

    func testTheAPICanBeTurnedOff() throws {
        let (_, web, _) = try daemon("subsonic {\n    enabled \"no\"\n}\n")
        XCTAssertEqual(try curl("http://127.0.0.1:\(web)/rest/ping?u=anna&p=sesame").status, 404)
        XCTAssertEqual(try curl("http://127.0.0.1:\(web)/").status, 200, "the page is still there")
    }

    /// Phones that read slowly, never read, or hang up mid-song, while the box plays: every
    /// frame of its song is heard in order, the MPD port keeps answering, and the API serves
    /// the next phone when they are done.
    func testStreamingPhonesNeverDisturbTheBoxsOwnPlayback() throws {
        let music = TemporaryDirectory("nimbus-subsonic-playback")
        try AudioFixtures.writeRampWAV(to: music.file("ramp.wav"), frames: 132_300)
        try runTool("sox", ["-n", "-r", "44100", "-c", "2", "-b", "16", music.file("big.wav"), "synth", "60", "whitenoise", "vol", "0.3"])
        let capture = ALSACapture(in: music)
        let web = freePort()
        let daemon = try ServerProcess(
            .nimbus, config: ALSACapture.outputBlock() + "\nweb {\n    port \"\(web)\"\n}\n" + Self.user, musicDirectory: music.path,
            environment: capture.environment)
        keep += [music, daemon]
        try daemon.waitForDatabase(songs: 2)
        let big = "http://127.0.0.1:\(web)/rest/stream?u=anna&p=sesame&id=" + Self.songID("big.wav")
        var phones: [Process] = []
        for index in 0..<9 {
            let phone = Process()
            phone.executableURL = URL(fileURLWithPath: "/usr/bin/curl")
            // Three read slowly, three hang up after a second of reading, three hardly read at all.
            switch index % 3 {
            case 0: phone.arguments = ["-s", "-o", "/dev/null", "--limit-rate", "50k", big]
            case 1: phone.arguments = ["-s", "-o", "/dev/null", "--limit-rate", "200k", "--max-time", "1", big]
            default: phone.arguments = ["-s", "-o", "/dev/null", "--limit-rate", "1", big]
            }
            try phone.run()
            phones.append(phone)
        }
        defer { for phone in phones where phone.isRunning { phone.terminate() } }
        let client = try daemon.connect()
        for command in ["add ramp.wav", "play"] { XCTAssertEqual(try client.request(command), ["OK"], command) }
        XCTAssertTrue(client.waitForStatus("state: stop", timeout: 60), "playback did not end")
        XCTAssertTrue(phones[0].isRunning && phones[2].isRunning, "the slow phones were streaming all along")
        // Answered while three phones read a byte a second: the MPD port never waits on them.
        for _ in 0..<20 { XCTAssertEqual(try client.request("status").last, "OK", "the MPD port waited on the phones") }
        XCTAssertFalse(daemon.log.contains("ran dry"), "the box's own playback never waited: \(daemon.log)")
        XCTAssertTrue(AudioFixtures.rampIndices(capture.bytes).elementsEqual(0..<132_300), "every frame, in order, once")
        let ping = try runTool("curl", ["-s", "-m", "10", "http://127.0.0.1:\(web)/rest/ping?u=anna&p=sesame&f=json"])
        XCTAssertTrue(ping.contains("\"ok\""), ping)
    }

    /// The id scheme (SubsonicIDs), computed independently: "s" + the first 16 hex digits of
    /// MD5("song" NUL uri).
    static func songID(_ uri: String) -> String {
        let script = "import hashlib,sys;print(hashlib.md5(b'song\\0' + sys.argv[1].encode()).hexdigest()[:16])"
        return "s" + ((try? runTool("/usr/bin/python3", ["-c", script, uri])) ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// 1,203 songs (more than a page of 1,000), a few albums with a cover file and the rest
    /// without: every count a client asks is honoured up to the documented bound, and every
    /// `coverArt` id handed out answers a picture (Scripts/subsonic_clients.py `pages`).
    func testListsHonourTheCountsAskedAndEveryAdvertisedCoverIsAPicture() throws {
        try XCTSkipUnless(FileManager.default.isExecutableFile(atPath: Self.python), "scripts/install-python-clients has not run")
        let scratch = TemporaryDirectory("nimbus-subsonic-pages")
        keep.append(scratch)
        let music = scratch.path + "/music"
        try runTool("/usr/bin/python3", [Fixtures.repositoryRoot + "/scripts/make-corpus", music, "1203", "1"])
        for album in ["Artist 000/Album 0000", "Artist 001/Album 0001", "Artist 002/Album 0014"] {
            try runTool("ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "color=c=red:s=96x96", "-frames:v", "1", "\(music)/\(album)/cover.jpg"])
        }
        let web = freePort()
        let daemon = try ServerProcess(.nimbus, config: "web {\n    port \"\(web)\"\n}\n" + Self.user, musicDirectory: music)
        keep.append(daemon)
        try daemon.waitForDatabase(songs: 1203)
        let output = try runTool(Self.python, [Self.script, String(web), "anna", "sesame", music, String(daemon.port), scratch.file("ids"), "pages"])
        XCTAssertTrue(output.hasSuffix("ALL OK\n"), output)
        XCTAssertTrue(output.contains("pages ok: 1203 songs"), output)
    }
}
