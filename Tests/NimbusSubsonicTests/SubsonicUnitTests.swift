import Foundation
import FoundationXML
import NimbusModel
import NimbusSupport
import XCTest

@testable import NimbusSubsonic

final class SubsonicUnitTests: XCTestCase {
    /// Ids must never change (a phone's offline copy is keyed by them): pinned here.
    func testIdsArePinned() {
        XCTAssertEqual(SubsonicIDs.song("broken/truncated.flac"), "s45aabf16c2c18465")
        XCTAssertEqual(SubsonicIDs.song("Alpha Band/First Light/01 - Dawn.flac"), SubsonicIDs.song("Alpha Band/First Light/01 - Dawn.flac"))
        XCTAssertEqual(SubsonicIDs.album(artist: "Alpha Band", album: "First Light"), "ac2b40bda1e814478")
        XCTAssertEqual(SubsonicIDs.artist("Alpha Band"), "re5346bf145f2a12b")
        XCTAssertEqual(SubsonicIDs.directory("Alpha Band"), "d7436f068439ea00a")
        XCTAssertEqual(SubsonicIDs.folder(nil), 0)
        XCTAssertEqual(SubsonicIDs.folder("dav"), SubsonicIDs.folder("dav"))
        XCTAssertGreaterThan(SubsonicIDs.folder("dav"), 0)
        XCTAssertTrue(SubsonicIDs.isWellFormed("s45aabf16c2c18465", prefix: "s"))
        // The index keeps ids as 64-bit keys: written out, they are the same ids.
        let key = SubsonicIDs.songKey("broken/truncated.flac")
        XCTAssertEqual(SubsonicIDs.id("s", key), "s45aabf16c2c18465")
        XCTAssertEqual(SubsonicIDs.key(of: "s45aabf16c2c18465", prefix: "s"), key)
        XCTAssertEqual(SubsonicIDs.id("a", SubsonicIDs.albumKey(artist: "Alpha Band", album: "First Light")), "ac2b40bda1e814478")
        XCTAssertEqual(SubsonicIDs.id("r", SubsonicIDs.artistKey("Alpha Band")), "re5346bf145f2a12b")
        XCTAssertEqual(SubsonicIDs.id("s", 0x00ff), "s00000000000000ff", "leading zeros kept")
        XCTAssertNil(SubsonicIDs.key(of: "a45aabf16c2c18465", prefix: "s"))
        for bad in ["../etc/passwd", "s45AABF16C2C18465", "s45aabf16c2c1846", "a45aabf16c2c18465", ""] {
            XCTAssertFalse(SubsonicIDs.isWellFormed(bad, prefix: "s"), bad)
        }
    }

    func testOneTreeEncodesAsXMLAndJSONWithListsAsArrays() throws {
        var root = SubsonicNode("subsonic-response", [("status", .string("ok"))])
        var list = SubsonicNode("albumList2")
        var album = SubsonicNode("album")
        album.set("id", "a1")
        album.set("name", "Tom & \"Jerry\" <live>")
        album.set("songCount", 3)
        album.set("starred", true)
        list.add(list: "album", [album])
        var empty = SubsonicNode("genres")
        empty.add(list: "genre", [])
        root.add(list)
        root.add(empty)
        let json = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(SubsonicFormat.json.encode(root))) as? [String: Any])
        let response = try XCTUnwrap(json["subsonic-response"] as? [String: Any])
        let albums = try XCTUnwrap((response["albumList2"] as? [String: Any])?["album"] as? [[String: Any]], "one album is still an array")
        XCTAssertEqual(albums.first?["name"] as? String, "Tom & \"Jerry\" <live>")
        XCTAssertEqual(albums.first?["songCount"] as? Int, 3)
        XCTAssertEqual(albums.first?["starred"] as? Bool, true)
        XCTAssertEqual(((response["genres"] as? [String: Any])?["genre"] as? [Any])?.count, 0, "an empty list is []")
        let xml = String(decoding: SubsonicFormat.xml.encode(root), as: UTF8.self)
        XCTAssertTrue(xml.contains(#"name="Tom &amp; &quot;Jerry&quot; &lt;live&gt;""#), xml)
        XCTAssertTrue(xml.contains(#"xmlns="http://subsonic.org/restapi""#), xml)
        let parsed = XMLParser(data: Data(xml.utf8))
        XCTAssertTrue(parsed.parse(), "well-formed XML")
        XCTAssertEqual(SubsonicFormat("jsonp", callback: "alert(1)//"), .json, "a callback that is not a name is not echoed")
        XCTAssertEqual(SubsonicFormat("jsonp", callback: "cb_1"), .jsonp(callback: "cb_1"))
    }

    /// The encoder writes numbers and dates digit by digit: the edges of each.
    func testNumbersAndDatesAreWrittenExactly() throws {
        var node = SubsonicNode("song")
        for (index, value) in [Int64.min, -1, 0, 7, 10, 1_234_567_890, Int64.max].enumerated() { node.set("n\(index)", value) }
        node.set("no", false)
        let json = String(decoding: SubsonicFormat.json.encode(node), as: UTF8.self)
        XCTAssertTrue(json.contains(#""n0":-9223372036854775808,"n1":-1,"n2":0,"n3":7,"n4":10,"n5":1234567890,"n6":9223372036854775807,"no":false"#), json)
        XCTAssertEqual(ItemNodes.date(0), "1970-01-01T00:00:00.000Z")
        XCTAssertEqual(ItemNodes.date(951_782_400), "2000-02-29T00:00:00.000Z")
        XCTAssertEqual(ItemNodes.date(1_764_890_879), "2025-12-04T23:27:59.000Z")
        XCTAssertEqual(ItemNodes.date(-5), "1970-01-01T00:00:00.000Z")
    }

    func testEveryWayOfSigningIn() {
        let signIn = SubsonicSignIn(users: [SubsonicUser(name: "anna", password: "sesame", permissions: [.read])])
        func check(_ pairs: [(String, String)]) -> Int {
            do {
                _ = try signIn.check(SubsonicArguments(pairs.map { (name: $0.0, value: $0.1) }), peer: "test")
                return 0
            } catch {
                return error.code
            }
        }
        XCTAssertEqual(check([("u", "anna"), ("p", "sesame")]), 0)
        XCTAssertEqual(check([("u", "anna"), ("p", "enc:736573616d65")]), 0)
        XCTAssertEqual(check([("u", "anna"), ("t", MD5.hex(Array("sesamec19b2d".utf8))), ("s", "c19b2d")]), 0)
        XCTAssertEqual(check([("u", "anna"), ("p", "wrong")]), 40)
        XCTAssertEqual(check([("u", "nobody"), ("p", "sesame")]), 40)
        XCTAssertEqual(check([("u", "anna")]), 10)
        XCTAssertEqual(check([("u", "anna"), ("t", "abc")]), 10, "a token without its salt")
        XCTAssertEqual(check([("u", "anna"), ("p", "sesame"), ("t", "x"), ("s", "y")]), 43)
        XCTAssertEqual(check([("apiKey", "k")]), 44)
        signIn.replaceKeys([(SubsonicSignIn.keyHash("k"), "anna")])
        XCTAssertEqual(check([("apiKey", "k")]), 0)
        XCTAssertEqual(check([("apiKey", "k"), ("u", "anna")]), 43)
        XCTAssertEqual(signIn.delay(for: "test"), 0)
        for _ in 0..<6 { _ = check([("u", "anna"), ("p", "guess")]) }
        XCTAssertGreaterThan(signIn.delay(for: "test"), 0, "guessing is slowed")
        XCTAssertEqual(signIn.delay(for: "elsewhere"), 0, "per address")
    }

    func testByteRanges() {
        XCTAssertEqual(SubsonicService.byteRange("bytes=10-19", length: 100), 10..<20)
        XCTAssertEqual(SubsonicService.byteRange("bytes=90-", length: 100), 90..<100)
        XCTAssertEqual(SubsonicService.byteRange("bytes=-10", length: 100), 90..<100)
        XCTAssertEqual(SubsonicService.byteRange("bytes=50-1000", length: 100), 50..<100)
        for bad in ["bytes=100-", "bytes=20-10", "items=0-1", "bytes=x-y", "bytes=-0"] {
            XCTAssertNil(SubsonicService.byteRange(bad, length: 100), bad)
        }
    }

    func testArgumentsAreCheckedAndClamped() throws {
        let arguments = SubsonicArguments([("size", "99999999999999999999"), ("offset", "-5"), ("id", "a"), ("id", "b"), ("n", "x")])
        XCTAssertEqual(try arguments.int("size", default: 10, range: 0...500), 500)
        XCTAssertEqual(try arguments.int("offset", default: 0, range: 0...100), 0)
        XCTAssertThrowsError(try arguments.optional("id")) { XCTAssertEqual(($0 as? SubsonicError)?.code, 10) }
        XCTAssertThrowsError(try arguments.int("n", default: 0, range: 0...1)) { XCTAssertEqual(($0 as? SubsonicError)?.code, 10) }
        XCTAssertThrowsError(try arguments.required("missing")) { XCTAssertEqual(($0 as? SubsonicError)?.code, 10) }
    }

    func testRunTimeUsersAndKeysPersistPrivately() throws {
        let directory = NSTemporaryDirectory() + "nimbus-subsonic-accounts-\(getpid())"
        try? FileManager.default.removeItem(atPath: directory)
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let file = directory + "/users"
        let configured = [SubsonicUser(name: "anna", password: "a")]
        let accounts = SubsonicAccounts(configured: configured, file: file, logger: .silent)
        try accounts.addUser("bob", password: "b", permissions: [.read])
        let key = try accounts.addKey(user: "bob", label: "phone")
        XCTAssertThrowsError(try accounts.addUser("anna", password: "x", permissions: [.read]), "a configured name")
        XCTAssertThrowsError(try accounts.removeUser("anna"), "a configured user")
        XCTAssertThrowsError(try accounts.addKey(user: "nobody", label: ""))
        let mode = try XCTUnwrap(FileManager.default.attributesOfItem(atPath: file)[.posixPermissions] as? Int)
        XCTAssertEqual(mode & 0o077, 0)
        XCTAssertFalse(try String(contentsOfFile: file, encoding: .utf8).contains(key.key), "only the hash is kept")

        let again = SubsonicAccounts(configured: configured, file: file, logger: .silent)
        XCTAssertEqual(again.listing.map(\.name), ["anna", "bob"])
        XCTAssertEqual(again.listing[1].keys.map(\.id), [key.id])
        XCTAssertEqual(try again.signIn.check(SubsonicArguments([(name: "apiKey", value: key.key)]), peer: "p").name, "bob")
        try again.removeUser("bob")
        XCTAssertThrowsError(try again.signIn.check(SubsonicArguments([(name: "apiKey", value: key.key)]), peer: "p"), "its keys went with it")

        try "not json".write(toFile: file, atomically: true, encoding: .utf8)
        let damaged = SubsonicAccounts(configured: configured, file: file, logger: .silent)
        XCTAssertEqual(damaged.listing.map(\.name), ["anna"], "a damaged file leaves the configured users")
        XCTAssertEqual(try String(contentsOfFile: file, encoding: .utf8), "not json", "and is left for the user to see")
    }
}
