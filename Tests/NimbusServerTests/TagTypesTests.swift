import NimbusModel
import NimbusHarness
import XCTest

final class TagTypesTests: XCTestCase {
    func testMaskCommands() throws {
        let server = try TestServer()
        let client = try server.connect()
        let all = TagMask.defaultEnabled.tags.map { "tagtype: \($0.wireName)" } + ["OK"]
        XCTAssertEqual(try client.request("tagtypes"), all)
        XCTAssertEqual(try client.request("tagtypes \"clear\""), ["OK"])
        XCTAssertEqual(try client.request("tagtypes"), ["OK"])
        XCTAssertEqual(try client.request("tagtypes enable album ARTIST Comment"), ["OK"])
        XCTAssertEqual(try client.request("tagtypes"), ["tagtype: Artist", "tagtype: Album", "OK"])
        XCTAssertEqual(try client.request("tagtypes disable Artist"), ["OK"])
        XCTAssertEqual(try client.request("tagtypes"), ["tagtype: Album", "OK"])
        XCTAssertEqual(try client.request("tagtypes all"), ["OK"])
        XCTAssertEqual(try client.request("tagtypes"), all)
    }

    func testMaskErrors() throws {
        let server = try TestServer()
        let client = try server.connect()
        XCTAssertEqual(try client.request("tagtypes clear x"), ["ACK [2@0] {tagtypes} Too many arguments"])
        XCTAssertEqual(try client.request("tagtypes all x"), ["ACK [2@0] {tagtypes} Too many arguments"])
        XCTAssertEqual(try client.request("tagtypes enable"), ["ACK [2@0] {tagtypes} Not enough arguments"])
        XCTAssertEqual(try client.request("tagtypes disable nosuch"), ["ACK [2@0] {tagtypes} Unknown tag type"])
        XCTAssertEqual(try client.request("tagtypes Enable artist"), ["ACK [2@0] {tagtypes} Unknown sub command"])
    }

    func testMaskIsPerConnection() throws {
        let server = try TestServer()
        let first = try server.connect()
        let second = try server.connect()
        XCTAssertEqual(try first.request("tagtypes clear"), ["OK"])
        XCTAssertEqual(try second.request("tagtypes").count, 35)
    }
}
