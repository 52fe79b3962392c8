import Foundation
import NimbusDecoder
import NimbusHarness
import NimbusInput
import NimbusModel
import XCTest

/// Opus through libopusfile against files made here with opusenc: exact lengths (pre-skip
/// and end padding trimmed), a join of two tracks cut from one sine that continues without a
/// gap, exact seeks, tags, R128 gains as MPD turns them into ReplayGain, and the cover.
final class OpusTests: XCTestCase {
    /// 48 kHz, so frame indices are the encoder's; amplitude 0.5 of full scale.
    private static let frequency = 441.0

    private static func source(_ frame: Int) -> Double { 0.5 * 32767 * sin(2 * Double.pi * frequency * Double(frame) / 48000) }

    /// a.opus (frames 0..<30000) and b.opus (30000..<72000) of one sine, tagged, with a cover.
    private func fixtures() throws -> TemporaryDirectory {
        let directory = TemporaryDirectory("nimbus-opus")
        let png = directory.file("cover.png")
        try runTool("python3", ["-c", """
            import struct, sys, zlib
            def chunk(kind, data): return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
            raw = b"\\x00\\xff\\x00\\x00"
            open(sys.argv[1], "wb").write(b"\\x89PNG\\r\\n\\x1a\\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", 1, 1, 8, 2, 0, 0, 0))
                + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b""))
            """, png])
        for (name, range) in [("a", 0..<30_000), ("b", 30_000..<72_000)] {
            let wav = directory.file("\(name).wav")
            try writeWAV48(wav, range)
            var arguments = [
                "--quiet", "--bitrate", "192", "--title", "Part \(name)", "--artist", "Opus Band", "--album", "Joined",
                "--tracknumber", name == "a" ? "1" : "2", "--comment", "GENRE=Ambient",
            ]
            if name == "a" { arguments += ["--comment", "R128_TRACK_GAIN=-512", "--picture", png] }
            try runTool("opusenc", arguments + [wav, directory.file("\(name).opus")])
        }
        return directory
    }

    private func writeWAV48(_ path: String, _ range: Range<Int>) throws {
        try AudioFixtures.writeStereo16WAV(to: path, frames: range.count, rate: 48000) { index in
            let sample = UInt16(bitPattern: Int16(Self.source(range.lowerBound + index).rounded()))
            return (sample, sample)
        }
    }

    private func open(_ path: String) throws -> any AudioDecoder {
        try DecoderRegistry.standard.openDecoder(for: path, stream: try FileInputStream(path: path))
    }

    /// Left-channel samples of everything the decoder gives.
    private func left(_ decoder: any AudioDecoder) throws -> [Int16] {
        var samples: [Int16] = []
        var buffer = [Int16](repeating: 0, count: 4096 * 2)
        while true {
            let frames = try buffer.withUnsafeMutableBytes { try decoder.decode(into: $0) }
            if frames == 0 { return samples }
            for frame in 0..<frames { samples.append(buffer[frame * 2]) }
        }
    }

    /// The largest distance from the source sine, from frame `first` on (a lossy codec at
    /// 192 kbit/s stays within a few percent of a pure tone; a gap or a shift does not).
    private func worstError(_ samples: [Int16], from first: Int) -> Double {
        samples.enumerated().map { abs(Double($0.element) - Self.source(first + $0.offset)) }.max() ?? .infinity
    }

    func testTwoTracksJoinWithoutAGapAtTheirExactLengths() throws {
        let directory = try fixtures()
        let a = try open(directory.file("a.opus"))
        XCTAssertEqual(a.format.description, "48000:16:2")
        XCTAssertEqual(a.totalFrames, 30_000)
        let b = try open(directory.file("b.opus"))
        XCTAssertEqual(b.totalFrames, 42_000)
        let joined = try left(a) + (try left(b))
        XCTAssertEqual(joined.count, 72_000, "pre-skip and end padding trimmed: every frame once")
        // Skip the codec's first few milliseconds, where it converges; then the join must hold.
        XCTAssertLessThan(worstError(Array(joined[1000...]), from: 1000), 0.08 * 32767, "the signal continues across the join")
        let join = (-2...2).map { worstError(Array(joined[29_000..<31_000]), from: 29_000 + $0) }
        XCTAssertEqual(join.firstIndex(of: join.min()!), 2, "the second track is shifted at the join: \(join)")
    }

    func testSeeksLandOnTheFrame() throws {
        let directory = try fixtures()
        let b = try open(directory.file("b.opus"))
        try b.seek(toFrame: 24_000)
        let rest = try left(b)
        XCTAssertEqual(rest.count, 42_000 - 24_000)
        // Lossy, so exact means: the source frame it matches best is the one asked for.
        let errors = (-2...2).map { worstError(Array(rest.prefix(4800)), from: 30_000 + 24_000 + $0) }
        XCTAssertEqual(errors.firstIndex(of: errors.min()!), 2, "off by \(errors.firstIndex(of: errors.min()!)! - 2) frames: \(errors)")
        XCTAssertLessThan(errors[2], 0.08 * 32767)
    }

    func testTagsGainsAndCoverAsMPDReadsThem() throws {
        let directory = try fixtures()
        let plugin = try XCTUnwrap(DecoderRegistry.standard.plugin(forSuffix: "opus"))
        let a = try plugin.scan(try FileInputStream(path: directory.file("a.opus")), options: ScanOptions(comments: true, picture: true))
        XCTAssertEqual(a.format?.description, "48000:16:2")
        XCTAssertEqual(a.tag.duration, 625)
        XCTAssertEqual(a.tag.values(.title), ["Part a"])
        XCTAssertEqual(a.tag.values(.artist), ["Opus Band"])
        XCTAssertEqual(a.tag.values(.track), ["1"])
        XCTAssertEqual(a.tag.values(.genre), ["Ambient"])
        XCTAssertEqual(a.replayGain.trackGain, 3, "R128 -2 dB, +5 dB to ReplayGain's reference")
        XCTAssertNil(a.replayGain.albumGain)
        XCTAssertEqual(a.picture?.mimeType, "image/png")
        XCTAssertFalse(a.comments.contains { $0.key == "R128_TRACK_GAIN" }, "a gain, not a comment (MPD 0.24)")
        XCTAssertTrue(a.comments.contains { $0.key == "GENRE" && $0.value == "Ambient" })
        let b = try plugin.scan(try FileInputStream(path: directory.file("b.opus")), options: ScanOptions())
        XCTAssertEqual(b.replayGain.trackGain, 0, "without R128 tags the header's output gain is the track gain, as in MPD")
        XCTAssertThrowsError(try plugin.scan(try FileInputStream(path: directory.file("a.wav")), options: ScanOptions()))
    }

    func testAnOpusStreamInAnOggFileIsFoundAfterVorbisDeclinesIt() throws {
        let directory = try fixtures()
        try FileManager.default.copyItem(atPath: directory.file("a.opus"), toPath: directory.file("a.ogg"))
        let decoder = try open(directory.file("a.ogg"))
        XCTAssertEqual(decoder.format.description, "48000:16:2")
        XCTAssertEqual(try left(decoder).count, 30_000)
        let scanned = try XCTUnwrap(DecoderRegistry.standard.plugin(forSuffix: "ogg")).scan(
            try FileInputStream(path: directory.file("a.ogg")), options: ScanOptions())
        XCTAssertEqual(scanned.tag.values(.title), ["Part a"])
        try Data("not ogg at all".utf8).write(to: URL(fileURLWithPath: directory.file("bad.ogg")))
        XCTAssertThrowsError(try open(directory.file("bad.ogg")))
    }
}
