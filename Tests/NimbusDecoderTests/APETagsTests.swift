import Foundation
@testable import NimbusDecoder
import NimbusHarness
import NimbusInput
import XCTest

/// An MP3's loudness tags: APEv2 items at its end and ID3 TXXX frames carry ReplayGain and MixRamp.
final class APETagsTests: XCTestCase {
    private func apeTag(_ items: [(String, String)], binary: (String, [UInt8])? = nil) -> [UInt8] {
        func le(_ value: Int) -> [UInt8] { (0..<4).map { UInt8((value >> (8 * $0)) & 0xFF) } }
        var body: [UInt8] = []
        for (key, value) in items { body += le(value.utf8.count) + le(0) + Array(key.utf8) + [0] + Array(value.utf8) }
        if let (key, bytes) = binary { body += le(bytes.count) + le(1 << 1) + Array(key.utf8) + [0] + bytes }
        let count = items.count + (binary == nil ? 0 : 1)
        let footer = Array("APETAGEX".utf8) + le(2000) + le(body.count + 32) + le(count) + le(0) + [UInt8](repeating: 0, count: 8)
        return body + footer
    }

    func testMixRampAndReplayGainComeFromAnAPETagOnAnMP3() throws {
        let directory = TemporaryDirectory()
        try AudioFixtures.writeSineWAV(to: directory.file("a.wav"), frames: 44100)
        try runTool("lame", ["--quiet", directory.file("a.wav"), directory.file("a.mp3")])
        var bytes = Array(try Data(contentsOf: URL(fileURLWithPath: directory.file("a.mp3"))))
        bytes += apeTag(
            [("MIXRAMP_START", "-90.00 0.00;-17.00 1.50"), ("mixramp_end", "-90.00 0.00;-17.00 2.00"), ("REPLAYGAIN_TRACK_GAIN", "-3.00 dB")],
            binary: ("Cover Art (Front)", [1, 2, 3]))
        try Data(bytes).write(to: URL(fileURLWithPath: directory.file("a.mp3")))
        let result = try MP3Plugin().scan(try FileInputStream(path: directory.file("a.mp3")), options: ScanOptions())
        XCTAssertEqual(result.mixRamp.start, "-90.00 0.00;-17.00 1.50")
        XCTAssertEqual(result.mixRamp.end, "-90.00 0.00;-17.00 2.00", "keys are case-insensitive")
        XCTAssertEqual(result.replayGain.trackGain, -3)
        XCTAssertEqual(result.tag.duration ?? 0, 1000, accuracy: 30, "the tag does not disturb the audio")
    }

    func testMixRampComesFromID3TXXXFrames() throws {
        let directory = TemporaryDirectory()
        try AudioFixtures.writeSineWAV(to: directory.file("a.wav"), frames: 44100)
        try runTool("lame", [
            "--quiet", "--tv", "TXXX=MIXRAMP_START=-90.00 0.00;-17.00 1.50", "--tv", "TXXX=MIXRAMP_END=-90.00 0.00;-17.00 2.00",
            directory.file("a.wav"), directory.file("a.mp3"),
        ])
        let result = try MP3Plugin().scan(try FileInputStream(path: directory.file("a.mp3")), options: ScanOptions())
        XCTAssertEqual(result.mixRamp, MixRampTags(start: "-90.00 0.00;-17.00 1.50", end: "-90.00 0.00;-17.00 2.00"))
    }

    func testABrokenTagIsIgnored() throws {
        let directory = TemporaryDirectory()
        var tag = apeTag([("MIXRAMP_START", "-17 1")])
        // An item claiming more bytes than the tag holds.
        tag[0] = 0xFF
        try Data([UInt8](repeating: 0x55, count: 1000) + tag).write(to: URL(fileURLWithPath: directory.file("x.bin")))
        XCTAssertTrue(APETags.items(in: try FileInputStream(path: directory.file("x.bin"))).isEmpty)
        try Data([UInt8](repeating: 0x55, count: 10)).write(to: URL(fileURLWithPath: directory.file("y.bin")))
        XCTAssertTrue(APETags.items(in: try FileInputStream(path: directory.file("y.bin"))).isEmpty, "shorter than a footer")
    }
}
