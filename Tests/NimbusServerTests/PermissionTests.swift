import NimbusConfig
import NimbusModel
import NimbusHarness
import XCTest

final class PermissionTests: XCTestCase {
    var server: TestServer!

    override func setUpWithError() throws {
        server = try TestServer {
            $0.passwords = [PasswordEntry(password: "secret", permissions: [.read]), PasswordEntry(password: "boss", permissions: .all)]
            $0.defaultPermissions = []
            $0.localPermissions = [.read]
        }
    }

    override func tearDown() { server = nil }

    func testWithoutPermissionOnlyTheAlwaysAllowedCommandsAreListed() throws {
        let client = try server.connect()
        XCTAssertEqual(
            try client.request("commands"),
            ["binarylimit", "close", "commands", "notcommands", "password", "ping", "protocol", "tagtypes"].map { "command: \($0)" }
                + ["OK"])
        XCTAssertEqual(try client.request("status"), [#"ACK [4@0] {status} you don't have permission for "status""#])
        XCTAssertEqual(try client.request("idle"), [#"ACK [4@0] {idle} you don't have permission for "idle""#])
        XCTAssertTrue(try client.request("notcommands").contains("command: kill"))
    }

    func testPasswordGrantsItsPermissionsAndAWrongOneKeepsThem() throws {
        let client = try server.connect()
        XCTAssertEqual(try client.request("password secret"), ["OK"])
        XCTAssertEqual(try client.request("status").last, "OK")
        XCTAssertEqual(try client.request("password wrong"), ["ACK [3@0] {password} incorrect password"])
        XCTAssertEqual(try client.request("status").last, "OK")
        XCTAssertEqual(
            try client.request("sendmessage chat x"), [#"ACK [4@0] {sendmessage} you don't have permission for "sendmessage""#])
        let commands = try client.request("commands")
        XCTAssertTrue(commands.contains("command: status"))
        XCTAssertFalse(commands.contains("command: kill"))
        XCTAssertTrue(try client.request("notcommands").contains("command: sendmessage"))
    }

    func testAdminSeesConfigOverTCPButMayNotRunIt() throws {
        let client = try server.connect()
        XCTAssertEqual(try client.request("password boss"), ["OK"])
        XCTAssertTrue(try client.request("commands").contains("command: config"))
        XCTAssertEqual(try client.request("notcommands"), ["OK"])
        XCTAssertEqual(try client.request("config"), ["ACK [4@0] {config} Command only permitted to local clients"])
    }

    func testLocalSocketGetsLocalPermissionsAndConfig() throws {
        let client = try server.connectLocal()
        XCTAssertEqual(try client.request("status").last, "OK")
        XCTAssertEqual(try client.request("config"), [#"ACK [4@0] {config} you don't have permission for "config""#])
        XCTAssertEqual(try client.request("password boss"), ["OK"])
        XCTAssertEqual(try client.request("config"), ["music_directory: \(server.musicDirectory)", "playlist_directory: \(server.playlistDirectory)", "pcre: 1", "OK"])
    }

    /// MPD 0.24 moved the transport and option commands from `control` to `player`: a
    /// `control`-only password edits the queue but cannot press play.
    func testPlayerCommandsNeedThePlayerPermission() throws {
        let server = try TestServer {
            $0.passwords = [PasswordEntry(password: "dj", permissions: [.read, .add, .control]),
                            PasswordEntry(password: "remote", permissions: [.read, .player])]
            $0.defaultPermissions = []
        }
        let dj = try server.connect(), remote = try server.connect()
        XCTAssertEqual(try dj.request("password dj"), ["OK"])
        XCTAssertEqual(try remote.request("password remote"), ["OK"])
        for command in ["play", "pause", "stop", "next", "clear", "random 1", "consume oneshot", "setvol 5", "volume 1", "delete 0"] {
            let name = command.split(separator: " ")[0]
            XCTAssertEqual(try dj.request(command), [#"ACK [4@0] {\#(name)} you don't have permission for "\#(name)""#], command)
        }
        XCTAssertEqual(try dj.request("playlistadd x http://127.0.0.1:9/a.mp3"), ["OK"])
        XCTAssertEqual(try dj.request("playlistclear x"), ["OK"])
        XCTAssertEqual(try remote.request("random 1"), ["OK"])
        XCTAssertEqual(try remote.request("playlistclear x"), [#"ACK [4@0] {playlistclear} you don't have permission for "playlistclear""#])
    }

    func testPermissionIsCheckedBeforeArity() throws {
        let client = try server.connect()
        XCTAssertEqual(try client.request("status extra"), [#"ACK [4@0] {status} you don't have permission for "status""#])
    }
}

final class DefaultPermissionTests: XCTestCase {
    func testWithoutPasswordsEveryoneIsAdminButCannotKillByAccident() throws {
        let server = try TestServer()
        let client = try server.connect()
        XCTAssertTrue(try client.request("commands").contains("command: kill"))
        XCTAssertEqual(try client.request("notcommands"), ["OK"])
    }
}
