import Foundation
import NimbusDecoder
import NimbusHarness
import NimbusInput
import NimbusModel
import XCTest

/// The FFmpeg plugin against files made here with Debian's ffmpeg: ALAC decoded bit for bit
/// with exact seeks, AAC tracks cut from one sine joining without a gap at their exact
/// lengths, MP4 tags and the cover as MPD reads them, and broken files refused.
final class FFmpegTests: XCTestCase {
    /// A chirp from 200 Hz up: unlike a steady tone, no shift of it looks like itself.
    private static func source(_ frame: Int) -> Int16 {
        let t = Double(frame) / 44100
        return Int16((0.5 * 32767 * sin(2 * Double.pi * (200 * t + 150 * t * t))).rounded())
    }

    private func writeWAV(_ path: String, _ range: Range<Int>) throws {
        try AudioFixtures.writeStereo16WAV(to: path, frames: range.count) { index in
            let sample = UInt16(bitPattern: Self.source(range.lowerBound + index))
            return (sample, sample)
        }
    }

    private func ffmpeg(_ arguments: [String]) throws {
        try runTool("ffmpeg", ["-hide_banner", "-loglevel", "error", "-y"] + arguments + ["-fflags", "+bitexact", "-flags:a", "+bitexact"])
    }

    /// a (frames 0..<30000) and b (30000..<72000) of one sine, as ALAC and AAC in .m4a.
    private func fixtures() throws -> TemporaryDirectory {
        let directory = TemporaryDirectory("nimbus-ffmpeg")
        for (name, range) in [("a", 0..<30_000), ("b", 30_000..<72_000)] {
            let wav = directory.file("\(name).wav")
            try writeWAV(wav, range)
            try ffmpeg(["-i", wav, "-c:a", "alac", directory.file("\(name)-alac.m4a")])
            try ffmpeg(["-i", wav, "-c:a", "aac", "-b:a", "256k", directory.file("\(name)-aac.m4a")])
        }
        return directory
    }

    private func open(_ path: String) throws -> any AudioDecoder {
        try DecoderRegistry.standard.openDecoder(for: path, stream: try FileInputStream(path: path))
    }

    /// The left channel of everything the decoder gives, as `Sample`s.
    private func channel<Sample: Numeric>(_ decoder: any AudioDecoder, as type: Sample.Type) throws -> [Sample] {
        var samples: [Sample] = []
        var buffer = [Sample](repeating: 0, count: 4096 * 2)
        while true {
            let frames = try buffer.withUnsafeMutableBytes { try decoder.decode(into: $0) }
            if frames == 0 { return samples }
            for frame in 0..<frames { samples.append(buffer[frame * 2]) }
        }
    }

    private func left(_ decoder: any AudioDecoder) throws -> [Int16] {
        XCTAssertEqual(decoder.format.sample, .s16, "16-bit in these tests")
        return try channel(decoder, as: Int16.self)
    }

    private func leftFloat(_ decoder: any AudioDecoder) throws -> [Float] { try channel(decoder, as: Float.self) }

    func testALACDecodesBitForBitAndSeeksToTheFrame() throws {
        let directory = try fixtures()
        let a = try open(directory.file("a-alac.m4a"))
        XCTAssertEqual(a.format.description, "44100:16:2")
        XCTAssertEqual(a.totalFrames, 30_000)
        XCTAssertEqual(try left(a), (0..<30_000).map(Self.source))
        let b = try open(directory.file("b-alac.m4a"))
        try b.seek(toFrame: 22_050)
        XCTAssertEqual(try left(b), (30_000 + 22_050..<72_000).map(Self.source), "the seek landed on frame 22050")
    }

    func testAACTracksJoinWithoutAGapAtTheirExactLengths() throws {
        let directory = try fixtures()
        let a = try open(directory.file("a-aac.m4a"))
        XCTAssertEqual(a.format.description, "44100:f:2")
        let b = try open(directory.file("b-aac.m4a"))
        let first = try leftFloat(a)
        let second = try leftFloat(b)
        // FFmpeg's own AAC encoder declares a few frames less than it was given; what the
        // container declares is what plays, priming and padding trimmed.
        XCTAssertEqual(Int64(first.count), a.totalFrames)
        XCTAssertEqual(Int64(second.count), b.totalFrames)
        XCTAssertTrue((29_900...30_000).contains(first.count), "encoder delay and padding trimmed: \(first.count)")
        XCTAssertTrue((41_900...42_000).contains(second.count), "\(second.count)")
        func worst(_ samples: [Float], _ range: Range<Int>, from origin: Int, shift: Int) -> Float {
            range.map { abs(samples[$0] - Float(Self.source(origin + $0 + shift)) / 32768) }.max() ?? .infinity
        }
        // Each track starts on its first source frame: the join is the cut, with no gap.
        let tail = (-2...2).map { worst(first, first.count - 2000..<first.count, from: 0, shift: $0) }
        // (The encoder smears the first frame of a track that starts mid-wave: judged after it.)
        let head = (-2...2).map { worst(second, 1024..<3048, from: 30_000, shift: $0) }
        XCTAssertEqual(tail.firstIndex(of: tail.min()!), 2, "the first track is shifted: \(tail)")
        XCTAssertEqual(head.firstIndex(of: head.min()!), 2, "the second track is shifted: \(head)")
        XCTAssertLessThan(max(tail[2], head[2]), 0.05, "the sine continues across the join")
        try b.seek(toFrame: 22_050)
        let rest = try leftFloat(b)
        XCTAssertEqual(Int64(rest.count), b.totalFrames! - 22_050)
        let afterSeek = (-2...2).map { shift in (0..<2000).map { abs(rest[$0] - Float(Self.source(52_050 + $0 + shift)) / 32768) }.max()! }
        XCTAssertEqual(afterSeek.firstIndex(of: afterSeek.min()!), 2, "off after the seek: \(afterSeek)")
    }

    func testMP4TagsAndCoverAsMPDReadsThem() throws {
        let directory = TemporaryDirectory("nimbus-ffmpeg-tags")
        let wav = directory.file("s.wav")
        try writeWAV(wav, 0..<22_050)
        let cover = directory.file("cover.png")
        try ffmpeg(["-f", "lavfi", "-i", "color=c=red:s=8x8:d=1", "-frames:v", "1", cover])
        try ffmpeg([
            "-i", wav, "-i", cover, "-map", "0", "-map", "1", "-c:a", "alac", "-c:v", "copy", "-disposition:v", "attached_pic",
            "-metadata", "title=Ünïcode Title", "-metadata", "artist=M4A Artist", "-metadata", "album=M4A Album",
            "-metadata", "album_artist=M4A Band", "-metadata", "track=3/9", "-metadata", "disc=1/2", "-metadata", "date=2019",
            "-metadata", "genre=Jazz", "-metadata", "composer=A. Composer", directory.file("t.m4a"),
        ])
        let plugin = try XCTUnwrap(DecoderRegistry.standard.plugin(forSuffix: "m4a"))
        XCTAssertEqual(plugin.name, "ffmpeg")
        let scan = try plugin.scan(try FileInputStream(path: directory.file("t.m4a")), options: ScanOptions(comments: true, picture: true))
        XCTAssertEqual(scan.format?.description, "44100:16:2")
        XCTAssertEqual(scan.tag.duration, 500)
        XCTAssertEqual(scan.tag.values(.title), ["Ünïcode Title"])
        XCTAssertEqual(scan.tag.values(.artist), ["M4A Artist"])
        XCTAssertEqual(scan.tag.values(.albumArtist), ["M4A Band"])
        XCTAssertEqual(scan.tag.values(.track), ["3"])
        XCTAssertEqual(scan.tag.values(.disc), ["1"])
        XCTAssertEqual(scan.tag.values(.date), ["2019"])
        XCTAssertEqual(scan.tag.values(.composer), ["A. Composer"])
        XCTAssertEqual(scan.picture?.mimeType, "image/png")
        XCTAssertEqual(scan.picture?.data.prefix(4), [0x89, 0x50, 0x4E, 0x47])
        XCTAssertTrue(scan.comments.contains { $0.key == "genre" && $0.value == "Jazz" }, "\(scan.comments)")
    }

    func testBrokenFilesAreRefused() throws {
        let directory = try fixtures()
        let whole = try Data(contentsOf: URL(fileURLWithPath: directory.file("a-aac.m4a")))
        try whole.prefix(whole.count / 3).write(to: URL(fileURLWithPath: directory.file("truncated.m4a")))
        var random = SeededRandom(seed: 7)
        try Data((0..<8192).map { _ in UInt8.random(in: 0...255, using: &random) }).write(to: URL(fileURLWithPath: directory.file("random.m4a")))
        let plugin = try XCTUnwrap(DecoderRegistry.standard.plugin(forSuffix: "m4a"))
        XCTAssertThrowsError(try plugin.scan(try FileInputStream(path: directory.file("random.m4a")), options: ScanOptions()))
        XCTAssertThrowsError(try open(directory.file("random.m4a")))
        // A truncated file whose index is at the end has no index at all.
        XCTAssertThrowsError(try plugin.scan(try FileInputStream(path: directory.file("truncated.m4a")), options: ScanOptions()))
    }

    func testTheRegistryOffersFFmpegsFormatsButNotTheNativeOnes() {
        let plugin = DecoderRegistry.standard.plugins.last
        XCTAssertEqual(plugin?.name, "ffmpeg")
        for suffix in ["m4a", "aac", "ape", "mpc", "aiff", "mka", "tta", "wv", "dsf", "wma"] where !(plugin?.suffixes.isEmpty ?? true) {
            XCTAssertTrue(plugin?.suffixes.contains(suffix) == true, suffix)
        }
        for suffix in ["mp3", "flac", "ogg", "opus", "wav"] { XCTAssertFalse(plugin?.suffixes.contains(suffix) == true, suffix) }
        for suffix in ["txt", "jpg", "png", "srt", "m3u8", "bin", "h264", "lrc"] {
            XCTAssertFalse(plugin?.suffixes.contains(suffix) == true, "\(suffix) is never a song")
        }
        XCTAssertFalse(plugin?.mimeTypes.isEmpty ?? true)
    }
}
