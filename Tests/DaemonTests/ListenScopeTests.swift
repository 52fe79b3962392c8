import Foundation
import NimbusHarness
import XCTest

/// Everything that listens — the MPD port, the web page (HTTP and its WebSocket), `/rest/` on
/// the web port and on the API's own port — listens exactly where the config says, seen the way
/// a neighbour on the LAN sees it: the daemon in a network namespace of its own with a LAN
/// address on a veth pair, the neighbour in another (Scripts/listen_scope.py).
final class ListenScopeTests: XCTestCase {
    private func run(_ scenario: String) throws -> (probes: [String: String], listening: [String], log: String) {
        try XCTSkipUnless(geteuid() == 0, "network namespaces need root")
        try XCTSkipUnless(FileManager.default.isExecutableFile(atPath: "/usr/sbin/ip"), "iproute2 is missing (scripts/install-deps)")
        let directory = TemporaryDirectory("nimbus-listen")
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Scripts/listen_scope.py").path
        let output = try runTool("/usr/bin/python3", [script, ServerProcess.nimbusExecutable, directory.path, scenario])
        let result = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(output.utf8)) as? [String: Any], output)
        XCTAssertEqual(result["running"] as? Bool, true, output)
        return (
            try XCTUnwrap(result["probes"] as? [String: String], output), try XCTUnwrap(result["listening"] as? [String], output),
            result["log"] as? String ?? ""
        )
    }

    private let kinds = ["mpd", "http", "websocket", "rest", "api"]

    private func assertAnswered(_ probes: [String: String], _ key: String, file: StaticString = #filePath, line: UInt = #line) {
        let answer = probes[key] ?? "missing"
        let expected = key.hasSuffix(" mpd") ? "OK MPD 0.24.0" : key.hasSuffix(" websocket") ? "HTTP/1.1 101" : "HTTP/1.1 200"
        XCTAssertTrue(answer.hasPrefix(expected), "\(key): \(answer)", file: file, line: line)
    }

    func testLoopbackIsReachedFromTheBoxOnly() throws {
        let (probes, listening, log) = try run("loopback")
        for kind in kinds {
            XCTAssertEqual(probes["lan4 \(kind)"], "refused", "a LAN neighbour reaches \(kind) over IPv4")
            XCTAssertEqual(probes["lan6 \(kind)"], "refused", "a LAN neighbour reaches \(kind) over IPv6")
            assertAnswered(probes, "self4 \(kind)")
        }
        XCTAssertEqual(listening, ["127.0.0.1:14533", "127.0.0.1:16600", "127.0.0.1:16680"])
        XCTAssertTrue(log.contains("web page http://127.0.0.1:16680/\n"), log)
        XCTAssertTrue(log.contains("Subsonic API on http://127.0.0.1:14533/\n"), log)
    }

    func testAnyIsEveryAddressOfBothFamilies() throws {
        let (probes, listening, log) = try run("any")
        for kind in kinds {
            for place in ["lan4", "lan6", "self4"] { assertAnswered(probes, "\(place) \(kind)") }
        }
        XCTAssertEqual(listening, ["0.0.0.0:14533", "0.0.0.0:16600", "0.0.0.0:16680", "[::]:14533", "[::]:16600", "[::]:16680"])
        XCTAssertTrue(log.contains("web page http://[::]:16680/, http://0.0.0.0:16680/"), log)
    }

    func testALANAddressIsThatAddressAlone() throws {
        let (probes, listening, log) = try run("lan")
        for kind in kinds {
            assertAnswered(probes, "lan4 \(kind)")
            XCTAssertEqual(probes["lan6 \(kind)"], "refused", kind)
            XCTAssertEqual(probes["self4 \(kind)"], "refused", "loopback was not configured: \(kind)")
        }
        XCTAssertEqual(listening, ["10.213.0.1:14533", "10.213.0.1:16600", "10.213.0.1:16680"])
        XCTAssertTrue(log.contains("web page http://10.213.0.1:16680/"), log)
    }

    func testTheWebBlocksOwnAddressesWinOverTheMPDPorts() throws {
        let (probes, listening, _) = try run("webloopback")
        assertAnswered(probes, "lan4 mpd")
        assertAnswered(probes, "lan6 mpd")
        for kind in kinds.dropFirst() {
            XCTAssertEqual(probes["lan4 \(kind)"], "refused", kind)
            XCTAssertEqual(probes["lan6 \(kind)"], "refused", kind)
            assertAnswered(probes, "self4 \(kind)")
        }
        XCTAssertEqual(listening, ["0.0.0.0:16600", "127.0.0.1:14533", "127.0.0.1:16680", "[::]:16600"])
    }
}
