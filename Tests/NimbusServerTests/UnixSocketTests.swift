import NimbusHarness
import XCTest

final class UnixSocketTests: XCTestCase {
    func testGreetingAndCommandsOverTheUnixSocket() throws {
        let server = try TestServer()
        let (client, greeting) = try LineClient.connected(.unix(path: server.socketPath))
        XCTAssertEqual(greeting, "OK MPD 0.24.0")
        XCTAssertEqual(try client.request("ping"), ["OK"])
        XCTAssertEqual(try client.request("config"), ["music_directory: \(server.musicDirectory)", "playlist_directory: \(server.playlistDirectory)", "pcre: 1", "OK"])
    }

    func testSocketFileIsWorldConnectable() throws {
        let server = try TestServer()
        let attributes = try FileManager.default.attributesOfItem(atPath: server.socketPath)
        XCTAssertEqual((attributes[.posixPermissions] as? Int) ?? 0, 0o666)
    }
}
