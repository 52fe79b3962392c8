import NimbusHarness
import XCTest

/// Checks of the equalizer commands (Nimbus's own) on the test server's `silence` output;
/// what is heard is tested in DaemonTests/SoundEqualizerTests.
extension CheckHelpers {
    private static func preset(_ c: LineClient) throws {
        XCTAssertEqual(try c.request("eqimport flat \"Preamp: -1 dB\" \"Filter 1: ON PK Fc 1000 Hz Gain 2 dB Q 1\""), ["OK"])
    }

    static let sound: [String: CommandTableTests.Check] = [
        "eqpresets": { _, c in
            XCTAssertEqual(try c.request("eqpresets"), ["OK"])
            try preset(c)
            XCTAssertEqual(try c.request("eqpresets"), ["preset: flat", "OK"])
        },
        "eqimport": { _, c in
            try preset(c)
            XCTAssertEqual(try c.request("eqimport flat \"Filter 1: ON PK Fc 1000 Hz\""),
                ["ACK [2@0] {eqimport} Preset line 1 \"Filter 1: ON PK Fc 1000 Hz\": a PK band needs Gain"])
            XCTAssertEqual(try c.request("eqexport flat").first, "line: Preamp: -1 dB", "the refused text changed nothing")
        },
        "eqexport": { _, c in
            try preset(c)
            XCTAssertEqual(try c.request("eqexport flat"), ["line: Preamp: -1 dB", "line: Filter 1: ON PK Fc 1000 Hz Gain 2 dB Q 1", "OK"])
            XCTAssertEqual(try c.request("eqexport none"), ["ACK [50@0] {eqexport} No such preset"])
        },
        "eqappend": { _, c in
            try preset(c)
            XCTAssertEqual(try c.request("eqappend flat \"Filter 2: ON HP Fc 30 Hz Q 0.7\""), ["OK"])
            XCTAssertEqual(try c.request("eqexport flat").count, 4)
            XCTAssertEqual(try c.request("eqappend none \"Preamp: 0 dB\""), ["ACK [50@0] {eqappend} No such preset"])
        },
        "eqband": { _, c in
            try preset(c)
            XCTAssertEqual(try c.request("eqband flat 1 \"ON LSC Fc 100 Hz Gain 3 dB Q 0.7\""), ["OK"])
            XCTAssertEqual(try c.request("eqexport flat")[1], "line: Filter 1: ON LSC Fc 100 Hz Gain 3 dB Q 0.7")
            XCTAssertEqual(try c.request("eqband flat 9 \"ON PK Fc 1 Hz Gain 1 dB\""), ["ACK [2@0] {eqband} Band number 1 to 2 expected: \"9\""])
            XCTAssertEqual(try c.request("eqband flat 1 delete"), ["OK"])
            XCTAssertEqual(try c.request("eqexport flat"), ["line: Preamp: -1 dB", "OK"])
        },
        "eqdelete": { _, c in
            try preset(c)
            XCTAssertEqual(try c.request("eqdelete flat"), ["OK"])
            XCTAssertEqual(try c.request("eqdelete flat"), ["ACK [50@0] {eqdelete} No such preset"])
        },
        "eqset": { _, c in
            try preset(c)
            XCTAssertEqual(try c.request("eqset silence flat"), ["OK"])
            XCTAssertTrue(try c.request("outputs").contains("attribute: eq=flat"))
            XCTAssertEqual(try c.request("eqset silence off"), ["OK"])
            XCTAssertEqual(try c.request("eqset nowhere flat"), ["ACK [50@0] {eqset} No such audio output"])
        },
        "eqbypass": { _, c in
            XCTAssertEqual(try c.request("eqbypass silence 1"), ["OK"])
            XCTAssertTrue(try c.request("eqstatus silence").contains("bypass: 1"))
            XCTAssertEqual(try c.request("eqbypass silence maybe"), ["ACK [2@0] {eqbypass} Boolean (0/1) expected: maybe"])
        },
        "eqbalance": { _, c in
            XCTAssertEqual(try c.request("eqbalance silence -40"), ["OK"])
            XCTAssertTrue(try c.request("eqstatus silence").contains("balance: -40"))
        },
        "eqcrossfeed": { _, c in
            XCTAssertEqual(try c.request("eqcrossfeed silence jmeier"), ["OK"])
            XCTAssertTrue(try c.request("eqstatus silence").contains("crossfeed: jmeier"))
            XCTAssertEqual(try c.request("eqcrossfeed silence loud"),
                ["ACK [2@0] {eqcrossfeed} Crossfeed off, default, cmoy or jmeier expected: \"loud\""])
        },
        "eqstatus": { _, c in
            XCTAssertEqual(try c.request("eqstatus"),
                ["outputname: silence", "eq: off", "bypass: 0", "balance: 0", "crossfeed: off", "headroom: 0", "clipped: 0", "OK"])
            XCTAssertEqual(try c.request("eqstatus nowhere"), ["ACK [50@0] {eqstatus} No such audio output"])
        },
    ]
}
