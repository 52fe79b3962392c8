import NimbusConfig
import XCTest

/// Where a daemon without a config argument looks, and a user's runtime socket (MPD's rules).
final class ConfigSearchTests: XCTestCase {
    func testTheSearchOrderIsNimbusThenMPDs() {
        XCTAssertEqual(
            ConfigSearch.candidates(home: "/home/u", environment: ["XDG_CONFIG_HOME": "/x"]),
            ["/x/nimbus/nimbusd.conf", "/etc/nimbus/nimbusd.conf", "/x/mpd/mpd.conf", "/home/u/.mpdconf", "/home/u/.mpd/mpd.conf", "/etc/mpd.conf"])
        XCTAssertEqual(ConfigSearch.candidates(home: "/home/u", environment: ["XDG_CONFIG_HOME": "relative"]).first, "/home/u/.config/nimbus/nimbusd.conf")
        XCTAssertEqual(ConfigSearch.runtimeSocket(environment: ["XDG_RUNTIME_DIR": "/run/user/1000"], effectiveUser: 1000), "/run/user/1000/mpd/socket")
        XCTAssertEqual(ConfigSearch.runtimeSocket(environment: ["RUNTIME_DIRECTORY": "/run/nimbus:/x", "XDG_RUNTIME_DIR": "/run/user/1"], effectiveUser: 1), "/run/nimbus/socket")
        XCTAssertNil(ConfigSearch.runtimeSocket(environment: ["XDG_RUNTIME_DIR": "/run/user/0"], effectiveUser: 0), "root is a system daemon")
    }

    func testTheFirstReadableCandidateWins() {
        let present: Set = ["/home/u/.mpdconf", "/etc/mpd.conf"]
        XCTAssertEqual(ConfigSearch.find(home: "/home/u", environment: [:], readable: present.contains), "/home/u/.mpdconf")
        XCTAssertNil(ConfigSearch.find(home: "/home/u", environment: [:], readable: { _ in false }))
    }
}
