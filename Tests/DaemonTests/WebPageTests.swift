import Foundation
import NimbusHarness
import XCTest

/// The web page's server as independent clients meet it: curl for HTTP (the page's files,
/// caching, compression, refused hosts, paths and methods) and Debian's python3-websockets for
/// the WebSocket that carries MPD protocol lines (the same command table, permissions and idle
/// as TCP; refused origins and hosts; fragments, pings, an oversized message, a client that
/// never reads).
final class WebPageTests: XCTestCase {
    private var keep: [AnyObject] = []

    override func tearDown() {
        keep.removeAll()
        super.tearDown()
    }

    private func daemon(_ extra: String = "") throws -> (ServerProcess, Int) {
        let port = freePort()
        let music = try Fixtures.library()
        let daemon = try ServerProcess(.nimbus, config: "web {\n    port \"\(port)\"\n}\n" + extra, musicDirectory: music)
        keep.append(daemon)
        XCTAssertTrue(daemon.log.contains("web page http://127.0.0.1:\(port)/"), daemon.log)
        return (daemon, port)
    }

    /// curl's status, headers and body size.
    private func fetch(_ port: Int, _ path: String, _ options: [String] = []) throws -> (status: Int, headers: String, size: Int) {
        let scratch = TemporaryDirectory("nimbus-curl")
        let headers = scratch.write("headers", "")
        let out = try runTool(
            "curl", ["-s", "--path-as-is", "-o", "/dev/null", "-D", headers, "-w", "%{http_code} %{size_download}"] + options
                + ["http://127.0.0.1:\(port)\(path)"])
        let parts = out.split(separator: " ")
        let text = (try? String(contentsOfFile: headers, encoding: .utf8)) ?? ""
        return (Int(parts.first ?? "") ?? 0, text.lowercased(), Int(parts.last ?? "") ?? -1)
    }

    private func socket(_ port: Int, _ scenario: String, _ arguments: [String] = []) throws -> [String: Any] {
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Scripts/web_socket.py").path
        let output = try runTool("/usr/bin/python3", [script, "ws://127.0.0.1:\(port)/", scenario] + arguments)
        return try XCTUnwrap(JSONSerialization.jsonObject(with: Data(output.utf8)) as? [String: Any], output)
    }

    func testThePageIsServedCompressedCachedAndNothingElseIs() throws {
        try XCTSkipUnless(FileManager.default.fileExists(atPath: "/usr/bin/curl"), "curl is not installed")
        let (_, port) = try daemon()
        let page = try fetch(port, "/")
        XCTAssertEqual(page.status, 200)
        XCTAssertTrue(page.headers.contains("content-type: text/html"), page.headers)
        let etag = try XCTUnwrap(page.headers.split(separator: "\r\n").first { $0.hasPrefix("etag: ") }).dropFirst(6)
        XCTAssertEqual(try fetch(port, "/", ["-H", "If-None-Match: \(etag)"]).status, 304, "a second visit loads from the browser's cache")
        var shell = 0
        for file in ["/", "/app.js", "/mpd.js", "/ui.js", "/strings.js", "/now.js", "/queue.js", "/library.js", "/accounts.js", "/offline.js", "/playlists.js", "/settings.js", "/podcasts.js", "/phones.js", "/style.css", "/icon.svg"] {
            let plain = try fetch(port, file)
            let gzipped = try fetch(port, file, ["-H", "Accept-Encoding: gzip"])
            XCTAssertEqual(gzipped.status, 200, file)
            XCTAssertTrue(gzipped.headers.contains("content-encoding: gzip"), file)
            XCTAssertLessThan(gzipped.size, plain.size, file)
            shell += gzipped.size
        }
        XCTAssertLessThanOrEqual(shell, 100_000, "the app shell is at most 100 KB on a first visit")
        XCTAssertEqual(try fetch(port, "/", ["-I"]).status, 200, "HEAD")
        XCTAssertEqual(try fetch(port, "/", ["-X", "POST", "-d", "x"]).status, 405)
        for path in ["/nope.js", "/../../etc/passwd", "/%2e%2e/%2e%2e/etc/passwd", "/.hidden", "/app.js/x"] {
            XCTAssertEqual(try fetch(port, path).status, 404, path)
        }
        for host in ["evil.example", "127.0.0.1.evil.example:80", "localhost.evil.example"] {
            XCTAssertEqual(try fetch(port, "/", ["-H", "Host: \(host)"]).status, 403, "DNS rebinding: \(host)")
        }
        XCTAssertEqual(try fetch(port, "/", ["-H", "Host: localhost:\(port)"]).status, 200)
    }

    func testTheWebSocketIsAnMPDSessionLikeAnyOther() throws {
        let (daemon, port) = try daemon()
        try daemon.waitForDatabase(songs: 12)
        let result = try socket(port, "commands", ["status", "add \"Alpha Band/First Light/03 - Dusk.wav\"", "playlistinfo", "nonsense"])
        XCTAssertEqual(result["greeting"] as? String, "OK MPD 0.24.0\n")
        let answers = try XCTUnwrap(result["answers"] as? [String])
        XCTAssertTrue(answers[0].contains("state: stop\n") && answers[0].hasSuffix("OK\n"), answers[0])
        XCTAssertEqual(answers[1], "OK\n")
        XCTAssertTrue(answers[2].contains("file: Alpha Band/First Light/03 - Dusk.wav\n"), answers[2])
        XCTAssertEqual(answers[3], "ACK [5@0] {} unknown command \"nonsense\"\n")
        // What the page added is in the queue TCP clients see.
        XCTAssertTrue(try daemon.connect().request("playlistinfo").contains("file: Alpha Band/First Light/03 - Dusk.wav"))

        // And a change made over TCP wakes the page's idle.
        let marker = TemporaryDirectory("nimbus-web-idle")
        keep.append(marker)
        let flag = marker.file("idling")
        let idle = Process()
        idle.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Scripts/web_socket.py").path
        idle.arguments = [script, "ws://127.0.0.1:\(port)/", "idle", flag]
        let output = Pipe()
        idle.standardOutput = output
        try idle.run()
        XCTAssertTrue(waitUntil(timeout: 10) { FileManager.default.fileExists(atPath: flag) })
        XCTAssertEqual(try daemon.connect().request("clear"), ["OK"])
        idle.waitUntilExit()
        let woke = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        XCTAssertTrue(woke.contains("changed: playlist"), woke)
    }

    func testAPasswordGivesThePageExactlyItsPermissions() throws {
        let (_, port) = try daemon("password \"letmein@read\"\ndefault_permissions \"\"")
        let answers = try XCTUnwrap(try socket(port, "commands", ["status", "password letmein", "status", "play"])["answers"] as? [String])
        XCTAssertEqual(answers[0], "ACK [4@0] {status} you don't have permission for \"status\"\n")
        XCTAssertEqual(answers[1], "OK\n")
        XCTAssertTrue(answers[2].hasSuffix("OK\n") && answers[2].contains("state: "), answers[2])
        XCTAssertEqual(answers[3], "ACK [4@0] {play} you don't have permission for \"play\"\n")
    }

    func testForeignOriginsHostsAndOversizedMessagesAreRefused() throws {
        let (daemon, port) = try daemon()
        XCTAssertEqual(try socket(port, "origin", ["http://evil.example"])["opened"] as? Bool, false)
        XCTAssertEqual(try socket(port, "origin", ["http://127.0.0.1:\(port)"])["opened"] as? Bool, true, "the page's own origin")
        XCTAssertEqual(try socket(port, "host", ["rebound.evil.example"])["opened"] as? Bool, false)
        let oversized = try socket(port, "oversized")
        XCTAssertEqual(oversized["closed"] as? Bool, true)
        XCTAssertEqual(oversized["code"] as? Int, 1009, "message too big")
        let fragmented = try socket(port, "fragmented")
        XCTAssertTrue((fragmented["status"] as? String)?.contains("state: stop") == true, "\(fragmented)")
        XCTAssertEqual(fragmented["pong"] as? Bool, true)
        XCTAssertEqual(try socket(port, "close")["code"] as? Int, 1000, "a normal close is answered in kind")
        let reserved = try socket(port, "badopcode")
        XCTAssertEqual(reserved["upgraded"] as? Bool, true)
        XCTAssertEqual(reserved["code"] as? Int, 1002, "a reserved opcode is a protocol error that closes that connection")
        // libwebsockets takes a client's unmasked frame (RFC 6455 says to close); masking
        // protects proxies' caches, not the server, so the frame is served like any other.
        let unmasked = try socket(port, "unmasked")
        XCTAssertTrue(unmasked["code"] as? Int == 1002 || (unmasked["answer"] as? String ?? "").hasSuffix("OK\n"), "\(unmasked)")
        let garbage = try socket(port, "garbage")
        XCTAssertTrue((garbage["answer"] as? String ?? "").hasPrefix("HTTP/1.0 4"), "not HTTP: refused with a 4xx, \(garbage)")
        XCTAssertEqual(try fetch(port, "/").status, 200, "the page is still served")
        XCTAssertEqual(try daemon.connect().request("ping"), ["OK"], "the daemon is unharmed")
    }

    /// Seeded mutations of HTTP requests (the page's and `/rest/`'s), WebSocket handshakes and frames (`make fuzz` sends
    /// more: NIMBUS_WEB_FUZZ_CASES): each is refused or answered on its own connection, and the
    /// page, its WebSocket and the MPD port all still answer.
    func testMutatedRequestsAndFramesHarmNothing() throws {
        let (daemon, port) = try daemon(SubsonicAPITests.user)
        let environment = ProcessInfo.processInfo.environment
        let cases = Int(environment["NIMBUS_WEB_FUZZ_CASES"] ?? "") ?? 200
        let seed = environment["NIMBUS_FUZZ_SEED"] ?? "25"
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Scripts/web_fuzz.py").path
        let output = try runTool("/usr/bin/python3", [script, "127.0.0.1", "\(port)", seed, "\(cases)"])
        let result = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(output.utf8)) as? [String: Any], output)
        XCTAssertEqual(result["cases"] as? Int, cases)
        XCTAssertGreaterThan(result["answered"] as? Int ?? 0, 0, "some mutations are still requests worth an answer")
        XCTAssertEqual(result["pageServed"] as? Bool, true, "seed \(seed): the page is still served")
        XCTAssertEqual(result["websocket"] as? Bool, true, "seed \(seed): the WebSocket still carries MPD")
        XCTAssertEqual(result["api"] as? Bool, true, "seed \(seed): the Subsonic API still answers")
        XCTAssertEqual(try daemon.connect().request("ping"), ["OK"])
        XCTAssertFalse(daemon.log.contains("fatal") || daemon.log.contains("Fatal"), daemon.log)
    }

    func testAPageThatNeverReadsHarmsNobodyElse() throws {
        let (daemon, port) = try daemon("max_output_buffer_size \"64\"")
        try daemon.waitForDatabase(songs: 12)
        let result = try socket(port, "slow", ["3000"])
        XCTAssertEqual(result["other"] as? String, "OK\n", "another page is served meanwhile")
        XCTAssertEqual(try daemon.connect().request("ping"), ["OK"])
    }

    func testThePageCanBeTurnedOffAndABusyPortLeavesTheMPDPortServing() throws {
        let port = freePort()
        let off = try ServerProcess(.nimbus, config: "web {\n    enabled \"no\"\n    port \"\(port)\"\n}")
        keep.append(off)
        XCTAssertFalse(off.log.contains("web page"), off.log)
        XCTAssertThrowsError(try runTool("curl", ["-s", "-o", "/dev/null", "http://127.0.0.1:\(port)/"]), "nothing listens")
        let (first, busy) = try daemon()
        let second = try ServerProcess(.nimbus, config: "web {\n    port \"\(busy)\"\n}")
        keep += [first, second]
        XCTAssertTrue(waitUntil(timeout: 5) { second.log.contains("cannot listen on 127.0.0.1:\(busy)") }, second.log)
        XCTAssertEqual(try second.connect().request("ping"), ["OK"])
    }
}
