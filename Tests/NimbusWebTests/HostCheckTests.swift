import NimbusWeb
import XCTest

/// DNS rebinding and cross-site WebSockets: which `Host` and `Origin` the page's server takes.
final class HostCheckTests: XCTestCase {
    let check = HostCheck(extraNames: ["music.home.arpa"], hostName: "audiobox")

    func testTheBoxsOwnNamesAndAnyAddressAreAllowed() {
        for host in [
            "127.0.0.1:6680", "192.168.1.20:6680", "[::1]:6680", "[fe80::1]", "localhost:6680", "audiobox:6680", "AudioBox.local:6680",
            "audiobox.local.", "music.home.arpa", "10.0.0.7",
        ] {
            XCTAssertTrue(check.allows(host: host), host)
        }
    }

    func testOtherNamesAndNonsenseAreRefused() {
        for host in [
            "", "evil.example:6680", "audiobox.evil.example", "127.0.0.1.nip.io", "localhost.evil.example", "[::1", "box:port",
            "a b", "audiobox:99999999", "audiobox/..", String(repeating: "a", count: 300),
        ] {
            XCTAssertFalse(check.allows(host: host), host)
        }
    }

    func testAWebSocketComesFromThePageOrFromNoBrowserAtAll() {
        XCTAssertTrue(check.allows(origin: nil, host: "audiobox:6680"), "a client that is no browser sends no Origin")
        XCTAssertTrue(check.allows(origin: "http://audiobox:6680", host: "audiobox:6680"))
        XCTAssertFalse(check.allows(origin: "http://evil.example", host: "audiobox:6680"))
        XCTAssertFalse(check.allows(origin: "http://audiobox:6681", host: "audiobox:6680"))
        XCTAssertFalse(check.allows(origin: "null", host: "audiobox:6680"))
    }

    func testOnlyTheShippedFilesAreServed() {
        let assets = WebAssets([("index.html", Array("<p>page</p>".utf8)), ("app.js", Array(String(repeating: "let a = 1;\n", count: 50).utf8))])
        XCTAssertEqual(assets.asset(forPath: "/")?.name, "index.html")
        XCTAssertEqual(assets.asset(forPath: "/app.js?v=1")?.name, "app.js")
        XCTAssertNotNil(assets.asset(forPath: "/app.js")?.gzipped, "text is sent compressed")
        for path in ["/../etc/passwd", "/%2e%2e/app.js", "/assets/app.js", "/.hidden", "/nope.js", "//app.js", "app.js/"] {
            XCTAssertNil(assets.asset(forPath: path), path)
        }
        XCTAssertEqual(assets.asset(forPath: "/app.js")?.etag, assets.asset(forPath: "/app.js")?.etag)
        XCTAssertNotEqual(assets.asset(forPath: "/app.js")?.etag, assets.asset(forPath: "/")?.etag)
    }
}
