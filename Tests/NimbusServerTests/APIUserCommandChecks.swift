import NimbusHarness
import XCTest

/// Command-table checks of the phone API's users and keys, against a daemon with none
/// configured: what the page and a line client add, list, key and remove.
extension CheckHelpers {
    static let apiUsers: [String: Check] = [
        "subsonicusers": { _, c in
            XCTAssertEqual(try c.request("subsonicusers"), ["OK"], "nobody yet")
            XCTAssertEqual(try c.request("subsonicuseradd anna secret"), ["OK"])
            XCTAssertEqual(try c.request("subsonicusers"), ["user: anna", "permissions: read,add", "origin: client", "OK"])
        },
        "subsonicuseradd": { _, c in
            XCTAssertEqual(try c.request("subsonicuseradd ben \"pass word\" read,add,control"), ["OK"])
            XCTAssertTrue(try c.request("subsonicusers").contains("permissions: read,add,player,control"))
            XCTAssertEqual(try c.request("subsonicuseradd ben pw read,fly"), ["ACK [2@0] {subsonicuseradd} unknown permission \"fly\""])
            XCTAssertEqual(try c.request("subsonicuseradd \"\" pw"), ["ACK [2@0] {subsonicuseradd} Invalid user name"])
            XCTAssertEqual(try c.request("subsonicuseradd x"), ["ACK [2@0] {subsonicuseradd} too few arguments for \"subsonicuseradd\""])
        },
        "subsonicuserdelete": { _, c in
            XCTAssertEqual(try c.request("subsonicuserdelete nobody"), ["ACK [2@0] {subsonicuserdelete} No such user"])
            XCTAssertEqual(try c.request("subsonicuseradd anna secret"), ["OK"])
            XCTAssertEqual(try c.request("subsonicuserdelete anna"), ["OK"])
            XCTAssertEqual(try c.request("subsonicusers"), ["OK"])
        },
        "subsonickeyadd": { _, c in
            XCTAssertEqual(try c.request("subsonickeyadd nobody"), ["ACK [2@0] {subsonickeyadd} No such user"])
            XCTAssertEqual(try c.request("subsonicuseradd anna secret"), ["OK"])
            let made = try c.request("subsonickeyadd anna phone")
            XCTAssertEqual(made.count, 3, "\(made)")
            XCTAssertTrue(made[0].hasPrefix("id: ") && made[1].hasPrefix("key: ") && made[1].count == 5 + 64, "\(made)")
            let listed = try c.request("subsonicusers")
            XCTAssertTrue(listed.contains(made[0].replacingOccurrences(of: "id: ", with: "key: ")) && listed.contains("key_label: phone"), "\(listed)")
            XCTAssertFalse(listed.joined().contains(String(made[1].dropFirst(5))), "the key itself is never listed")
        },
        "subsonickeydelete": { _, c in
            XCTAssertEqual(try c.request("subsonickeydelete 0"), ["ACK [2@0] {subsonickeydelete} No such key"])
            XCTAssertEqual(try c.request("subsonicuseradd anna secret"), ["OK"])
            let id = try c.request("subsonickeyadd anna")[0].dropFirst(4)
            XCTAssertEqual(try c.request("subsonickeydelete \(id)"), ["OK"])
            XCTAssertFalse(try c.request("subsonicusers").contains { $0.hasPrefix("key: ") })
        },
    ]
}
