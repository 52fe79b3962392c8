import NimbusHarness
import XCTest

/// Command-table checks of transport, options (a table of command, status field and value), volume and outputs.
extension CheckHelpers {
    /// Options set by a command and shown as a `status` field: the command, the field, the value.
    static let options: [(command: String, field: String, shown: String)] = [
        ("random 1", "random", "1"),
        ("repeat 1", "repeat", "1"),
        ("single oneshot", "single", "oneshot"),
        ("consume 1", "consume", "1"),
        ("crossfade 5", "xfade", "5"),
        ("mixrampdb -10.5", "mixrampdb", "-10.5"),
        ("mixrampdelay 2", "mixrampdelay", "2"),
        ("setvol 40", "volume", "40")
    ]

    static var optionChecks: [String: Check] {
        Dictionary(uniqueKeysWithValues: options.map { option in
            let name = String(option.command.prefix { $0 != " " })
            let check: Check = { _, c in
                try ok(c, option.command)
                XCTAssertEqual(try status(c, option.field), option.shown, option.command)
            }
            return (name, check)
        })
    }

    static let player: [String: Check] = optionChecks.merging([
        "play": { _, c in
            try ok(c, "add \(dawn)")
            try ok(c, "play 0")
            XCTAssertEqual(try status(c, "state"), "play")
            XCTAssertEqual(try status(c, "songid"), "1")
        },
        "playid": { _, c in
            try ok(c, "add Beta")
            try ok(c, "playid 2")
            XCTAssertEqual(try status(c, "song"), "1")
            XCTAssertEqual(try status(c, "nextsong"), "2")
        },
        "pause": { _, c in
            try ok(c, "add \(dawn)")
            try ok(c, "play")
            try ok(c, "pause")
            XCTAssertEqual(try status(c, "state"), "pause")
            try ok(c, "pause 0")
            XCTAssertEqual(try status(c, "state"), "play")
        },
        "stop": { _, c in
            try ok(c, "add \(dawn)")
            try ok(c, "play")
            try ok(c, "stop")
            XCTAssertEqual(try status(c, "state"), "stop")
            XCTAssertEqual(try status(c, "song"), "0")
        },
        "next": { _, c in
            XCTAssertEqual(try c.request("next"), ["ACK [55@0] {next} Not playing"])
            try ok(c, "add Beta")
            try ok(c, "play 0")
            try ok(c, "next")
            XCTAssertEqual(try status(c, "song"), "1")
        },
        "previous": { _, c in
            try ok(c, "add Beta")
            try ok(c, "play 1")
            try ok(c, "previous")
            XCTAssertEqual(try status(c, "song"), "0")
        },
        "seek": { _, c in
            try ok(c, "add \(dawn)")
            try ok(c, "seek 0 2")
            let elapsed = Double(try status(c, "elapsed") ?? "") ?? 0
            XCTAssertGreaterThanOrEqual(elapsed, 2)
        },
        "seekid": { _, c in
            try ok(c, "add \(dawn)")
            try ok(c, "seekid 1 1.5")
            XCTAssertGreaterThanOrEqual(Double(try status(c, "elapsed") ?? "") ?? 0, 1.5)
        },
        "seekcur": { _, c in
            XCTAssertEqual(try c.request("seekcur 1"), ["ACK [55@0] {seekcur} Not playing"])
            try ok(c, "add \(dawn)")
            try ok(c, "play")
            try ok(c, "pause 1")
            try ok(c, "seekcur +2")
            XCTAssertGreaterThanOrEqual(Double(try status(c, "elapsed") ?? "") ?? 0, 2)
        },
        "clearerror": { _, c in
            try ok(c, "add http://127.0.0.1:9/unreachable.mp3")
            try ok(c, "play")
            XCTAssertTrue(waitUntil { (try? status(c, "error")) != nil })
            try ok(c, "clearerror")
            XCTAssertNil(try status(c, "error"))
        },
        "replay_gain_mode": { _, c in
            try ok(c, "replay_gain_mode track")
            XCTAssertEqual(try c.request("replay_gain_status"), ["replay_gain_mode: track", "OK"])
        },
        "replay_gain_status": { _, c in
            XCTAssertEqual(try c.request("replay_gain_status"), ["replay_gain_mode: off", "OK"])
        },
        "volume": { _, c in
            try ok(c, "volume -15")
            XCTAssertEqual(try c.request("getvol"), ["volume: 85", "OK"])
        },
        "getvol": { _, c in XCTAssertEqual(try c.request("getvol"), ["volume: 100", "OK"]) },
        "outputs": { _, c in
            XCTAssertEqual(try c.request("outputs"), ["outputid: 0", "outputname: silence", "plugin: null", "outputenabled: 1", "OK"])
        },
        "disableoutput": { _, c in
            try ok(c, "disableoutput 0")
            XCTAssertEqual(value("outputenabled", in: try c.request("outputs")), "0")
            XCTAssertEqual(try c.request("getvol"), ["volume: 100", "OK"], "as in MPD, a disabled output's mixer still counts")
        },
        "enableoutput": { _, c in
            try ok(c, "disableoutput 0")
            try ok(c, "enableoutput 0")
            XCTAssertEqual(value("outputenabled", in: try c.request("outputs")), "1")
        },
        "toggleoutput": { _, c in
            try ok(c, "toggleoutput 0")
            XCTAssertEqual(value("outputenabled", in: try c.request("outputs")), "0")
            XCTAssertEqual(try c.request("toggleoutput 1"), ["ACK [50@0] {toggleoutput} No such audio output"])
        },
        "outputset": { _, c in
            XCTAssertEqual(try c.request("outputset 0 dop 1"), ["ACK [2@0] {outputset} Unsupported attribute"])
        },
    ]) { $1 }
}
