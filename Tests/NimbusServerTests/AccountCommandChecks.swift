import NimbusHarness
import XCTest

/// Command-table checks of the cloud-account commands, against a daemon with no account:
/// what a client adds, lists, signs in to and removes, without any provider reachable.
extension CheckHelpers {
    static let accounts: [String: Check] = [
        "accounttypes": { _, c in
            let types = try c.request("accounttypes")
            XCTAssertTrue(types.contains("type: webdav") && types.contains("type: nextcloud") && types.contains("signin: device"), "\(types)")
        },
        "addaccount": { _, c in
            XCTAssertEqual(try c.request("addaccount share webdav url http://127.0.0.1:9/music/"), ["OK"])
            let listed = try c.request("listaccounts")
            XCTAssertTrue(listed.contains("account: share") && listed.contains("origin: client") && listed.contains("signin: not needed"), "\(listed)")
            XCTAssertEqual(try c.request("addaccount share webdav url http://127.0.0.1:9/"), ["ACK [56@0] {addaccount} An account or folder named \"share\" exists already"])
        },
        "removeaccount": { _, c in
            XCTAssertEqual(try c.request("addaccount share webdav url http://127.0.0.1:9/music/"), ["OK"])
            XCTAssertEqual(try c.request("removeaccount share"), ["OK"])
            XCTAssertEqual(try c.request("listaccounts"), ["OK"])
            XCTAssertEqual(try c.request("removeaccount share"), ["ACK [50@0] {removeaccount} No such account: share"])
        },
        "signin": { _, c in
            XCTAssertEqual(try c.request("signin nope"), ["ACK [50@0] {signin} No such account: nope"])
            XCTAssertEqual(try c.request("addaccount od onedrive client_id app token_url http://127.0.0.1:9/t device_code_url http://127.0.0.1:9/d"), ["OK"])
            let down = try c.request("signin od")
            XCTAssertTrue(down.count == 1 && down[0].hasPrefix("ACK [52@0] {signin} Cannot reach 127.0.0.1"), "\(down)")
            XCTAssertEqual(try c.request("signin od redirect http://evil.example/"), ["ACK [2@0] {signin} Usage: signin NAME [redirect http://127.0.0.1:PORT/]"])
        },
        "signincode": { _, c in
            XCTAssertEqual(try c.request("signincode nope x"), ["ACK [50@0] {signincode} No such account: nope"])
            XCTAssertEqual(try c.request("addaccount box dropbox client_id app"), ["OK"])
            XCTAssertEqual(
                try c.request("signincode box abc"), ["ACK [2@0] {signincode} No sign-in with a code is waiting for box; start one with signin"])
        },
        "signinpassword": { _, c in
            XCTAssertEqual(try c.request("addaccount nas webdav url http://127.0.0.1:9/ user me"), ["OK"])
            let down = try c.request("signinpassword nas pw")
            XCTAssertTrue(down.count == 1 && down[0].hasPrefix("ACK [52@0] {signinpassword} nas: "), "an unreachable server is not a wrong password: \(down)")
            XCTAssertTrue(try c.request("listaccounts").contains("signin: failed"))
        },
        "signincancel": { _, c in
            XCTAssertEqual(try c.request("signincancel nope"), ["ACK [50@0] {signincancel} No such account: nope"])
        },
        "signout": { _, c in
            XCTAssertEqual(try c.request("signout nope"), ["ACK [50@0] {signout} No such account: nope"])
            XCTAssertEqual(try c.request("addaccount nas webdav url http://127.0.0.1:9/ user me"), ["OK"])
            XCTAssertEqual(try c.request("signout nas"), ["OK"])
            XCTAssertTrue(try c.request("listaccounts").contains("signin: needed"))
        },
    ]
}
