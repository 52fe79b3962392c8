import Foundation
import NimbusHarness
import XCTest

/// The eq* commands over TCP as a client sees them: presets in and out as Equalizer APO
/// text, refusals that name the line and keep the preset, events, `outputs`' attribute, the
/// clip counter with automatic headroom, and everything kept across a restart.
final class SoundCommandTests: XCTestCase {
    private var daemons: [ServerProcess] = []

    override func tearDown() {
        daemons.removeAll()
        super.tearDown()
    }

    func testPresetsOutputsEventsAndRestart() throws {
        let daemon = try ServerProcess(.nimbus)
        daemons.append(daemon)
        let client = try daemon.connect()
        let watcher = try daemon.connect()
        XCTAssertEqual(try client.request("eqpresets"), ["OK"])
        try watcher.send("idle eq\n")
        let lines = ["Preamp: -6.2 dB", "Filter 1: ON PK Fc 105 Hz Gain -3.1 dB Q 0.70", "Filter 2: ON LSC Fc 105 Hz Gain 5,5 dB Q 0.71"]
        XCTAssertEqual(try client.request("eqimport \"HD 600\" " + lines.map { "\"\($0)\"" }.joined(separator: " ")), ["OK"])
        XCTAssertEqual(try watcher.readResponse(), ["changed: eq", "OK"], "eq clients hear of a new preset")
        XCTAssertEqual(try client.request("eqpresets"), ["preset: HD 600", "OK"])
        XCTAssertEqual(
            try client.request("eqexport \"HD 600\""),
            ["line: Preamp: -6.2 dB", "line: Filter 1: ON PK Fc 105 Hz Gain -3.1 dB Q 0.7", "line: Filter 2: ON LSC Fc 105 Hz Gain 5.5 dB Q 0.71", "OK"])

        // A malformed line is refused by number and text; the preset stays as it was.
        let refused = try client.request("eqimport \"HD 600\" \"Preamp: -1 dB\" \"Filter 1: ON XX Fc 100 Hz\"")
        XCTAssertEqual(refused.count, 1)
        XCTAssertTrue(refused[0].hasPrefix("ACK [2@0] {eqimport} Preset line 2 \"Filter 1: ON XX Fc 100 Hz\""), refused[0])
        XCTAssertEqual(try client.request("eqexport \"HD 600\"").first, "line: Preamp: -6.2 dB")
        XCTAssertEqual(try client.request("eqimport ../x \"Preamp: 0 dB\""), ["ACK [2@0] {eqimport} Bad preset name: \"../x\""])
        XCTAssertEqual(try client.request("eqexport nosuch"), ["ACK [50@0] {eqexport} No such preset"])

        // On an output: `output` for everyone, the attribute in `outputs`, and outputset as a synonym.
        try watcher.send("idle output\n")
        XCTAssertEqual(try client.request("eqset null \"HD 600\""), ["OK"])
        XCTAssertEqual(try watcher.readResponse(), ["changed: output", "OK"])
        XCTAssertTrue(try client.request("outputs").contains("attribute: eq=HD 600"))
        XCTAssertEqual(try client.request("eqset nosuch \"HD 600\""), ["ACK [50@0] {eqset} No such audio output"])
        XCTAssertEqual(try client.request("eqset null nosuch"), ["ACK [50@0] {eqset} No such preset"])
        XCTAssertEqual(try client.request("eqbalance null 30"), ["OK"])
        XCTAssertEqual(try client.request("eqbalance null 300"), ["ACK [2@0] {eqbalance} Balance from -100 (left) to 100 (right) expected: \"300\""])
        XCTAssertEqual(try client.request("eqcrossfeed null cmoy"), ["OK"])
        XCTAssertEqual(try client.request("eqband \"HD 600\" 3 \"ON HSC Fc 10000 Hz Gain -2 dB Q 0.71\""), ["OK"])
        XCTAssertEqual(try client.request("eqexport \"HD 600\"").count, 5, "the band was added")
        let status = try client.request("eqstatus null")
        for line in ["outputname: null", "eq: HD 600", "bypass: 0", "balance: 30", "crossfeed: cmoy", "clipped: 0"] {
            XCTAssertTrue(status.contains(line), "\(line) in \(status)")
        }
        XCTAssertEqual(try client.request("outputset 0 eq off"), ["OK"])
        XCTAssertFalse(try client.request("outputs").contains { $0.hasPrefix("attribute: eq=") }, "no preset, no attribute: as MPD")
        XCTAssertEqual(try client.request("outputset 0 eq \"HD 600\""), ["OK"])

        // Kept across a restart: the preset file and the output's choices.
        try daemon.restart()
        let again = try daemon.connect()
        XCTAssertEqual(try again.request("eqpresets"), ["preset: HD 600", "OK"])
        let restored = try again.request("eqstatus")
        for line in ["eq: HD 600", "balance: 30", "crossfeed: cmoy"] { XCTAssertTrue(restored.contains(line), "\(line) in \(restored)") }
        XCTAssertTrue(FileManager.default.fileExists(atPath: daemon.directory.file("presets/HD 600.txt")))

        // Deleting a preset in use turns the equalizer off where it was used.
        XCTAssertEqual(try again.request("eqdelete \"HD 600\""), ["OK"])
        XCTAssertTrue(try again.request("eqstatus").contains("eq: off"))
        XCTAssertEqual(try again.request("eqpresets"), ["OK"])
    }

    /// A +12 dB boost on a full-scale song: the chain takes 12 dB off in front, nothing clips.
    func testABoostOnAFullScaleSongDoesNotClip() throws {
        let music = TemporaryDirectory("nimbus-eq")
        try runTool("sox", ["-n", "-r", "44100", "-b", "24", "-c", "2", music.file("loud.flac"), "synth", "2", "sine", "1000", "gain", "-0.01"])
        let (daemon, capture, client) = try startCapturing(music, format: "44100:32:2", name: "capture")
        daemons.append(daemon)
        for command in ["eqimport boost \"Filter 1: ON PK Fc 1000 Hz Gain 12 dB Q 1\"", "eqset capture boost", "add loud.flac", "play"] {
            XCTAssertEqual(try client.request(command), ["OK"], command)
        }
        XCTAssertTrue(client.waitForStatus("state: stop"), "playback did not stop")
        let status = try client.request("eqstatus capture")
        XCTAssertTrue(status.contains("clipped: 0"), "\(status)")
        XCTAssertTrue(status.contains("headroom: -12"), "\(status)")
        let samples = capture.bytes.withUnsafeBytes { Array($0.bindMemory(to: Int32.self)) }
        let peak = samples.map { abs(Double($0)) / 2_147_483_648 }.max() ?? 0
        XCTAssertGreaterThan(peak, 0.95, "the boost brings the 1 kHz tone back to full scale")
        XCTAssertLessThan(peak, 1.0, "and not beyond")
    }
}
