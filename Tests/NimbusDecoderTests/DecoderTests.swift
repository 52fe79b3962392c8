import Foundation
import NimbusDecoder
import NimbusInput
import NimbusModel
import NimbusHarness
import XCTest

final class DecoderTests: XCTestCase {
    private func open(_ path: String) throws -> any AudioDecoder {
        try DecoderRegistry.standard.openDecoder(for: path, stream: try FileInputStream(path: path))
    }

    /// All frames as raw bytes.
    private func decodeAll(_ decoder: any AudioDecoder) throws -> [UInt8] {
        var output: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096 * decoder.format.frameBytes + 7)
        while true {
            let frames = try buffer.withUnsafeMutableBytes { try decoder.decode(into: $0) }
            if frames == 0 { return output }
            output += buffer[..<(frames * decoder.format.frameBytes)]
        }
    }

    func testEveryFormatDecodesItsExactLength() throws {
        let library = try Fixtures.library()
        let cases: [(String, String, Int64)] = [
            ("Alpha Band/First Light/01 - Dawn.flac", "44100:16:2", 132_300),
            ("Alpha Band/First Light/02 - Noon.mp3", "44100:16:2", 88_200),
            ("Alpha Band/Second Wind/01 - Ёлка.ogg", "44100:f:2", 88_200),
            ("Alpha Band/First Light/03 - Dusk.wav", "44100:16:2", 44_100),
            ("Various/quotes \"and\" spaces/id3 chunk.wav", "44100:24:2", 44_100),
        ]
        for (path, format, frames) in cases {
            let decoder = try open(library + "/" + path)
            XCTAssertEqual(decoder.format.description, format, path)
            XCTAssertEqual(decoder.totalFrames, frames, path)
            XCTAssertEqual(Int64(try decodeAll(decoder).count / decoder.format.frameBytes), frames, path)
        }
    }

    func testFLACIsLosslessAndSeeksToTheExactFrame() throws {
        let directory = TemporaryDirectory()
        let wav = directory.file("ramp.wav")
        let flac = directory.file("ramp.flac")
        try AudioFixtures.writeRampWAV(to: wav, frames: 100_000)
        try runTool("flac", ["--silent", "-f", "-o", flac, wav])
        let source = try decodeAll(try open(wav))
        let decoder = try open(flac)
        XCTAssertEqual(try decodeAll(decoder), source)
        for target in [0, 1, 4095, 4096, 66_150, 99_999] {
            try decoder.seek(toFrame: Int64(target))
            var buffer = [UInt8](repeating: 0, count: 4 * 16)
            let frames = try buffer.withUnsafeMutableBytes { try decoder.decode(into: $0) }
            XCTAssertGreaterThan(frames, 0)
            XCTAssertEqual(AudioFixtures.rampIndex(buffer), target, "FLAC seek to \(target)")
        }
    }

    func testWAVSeeksToTheExactFrame() throws {
        let directory = TemporaryDirectory()
        let wav = directory.file("ramp.wav")
        try AudioFixtures.writeRampWAV(to: wav, frames: 70_000)
        let decoder = try open(wav)
        try decoder.seek(toFrame: 66_150)
        var buffer = [UInt8](repeating: 0, count: 8)
        _ = try buffer.withUnsafeMutableBytes { try decoder.decode(into: $0) }
        XCTAssertEqual(AudioFixtures.rampIndex(buffer), 66_150)
    }

    func testVorbisAndMP3Seek() throws {
        let library = try Fixtures.library()
        for path in ["Alpha Band/Second Wind/01 - Ёлка.ogg", "Alpha Band/First Light/02 - Noon.mp3"] {
            let decoder = try open(library + "/" + path)
            try decoder.seek(toFrame: 44_100)
            XCTAssertEqual(Int64(try decodeAll(decoder).count / decoder.format.frameBytes), 44_100, path)
        }
    }

    /// A read that fails halfway (a server gone) is an error for every format, never a song
    /// that simply ends early: libvorbisfile takes a failed read for the end of the stream.
    func testAFailingStreamIsAnErrorNotAnEnd() throws {
        let library = try Fixtures.library()
        for path in ["Alpha Band/Second Wind/01 - Ёлка.ogg", "Alpha Band/First Light/02 - Noon.mp3", "Alpha Band/First Light/01 - Dawn.flac"]
        {
            let file = try FileInputStream(path: library + "/" + path)
            let stream = FailingStream(file, failAfter: (file.size ?? 0) / 2)
            let decoder = try DecoderRegistry.standard.openDecoder(for: path, stream: stream)
            stream.armed = true
            XCTAssertThrowsError(try decodeAll(decoder), path) { error in
                XCTAssertTrue("\(error)".contains("server went away"), "\(path): \(error)")
            }
        }
    }

    /// Every format cut at many points of its header: opening fails or the decoder plays what
    /// is there, and every C handle is freed once (a double free aborts the process).
    /// A file cut anywhere in its first 12 KB either does not open, or opens and decodes fewer
    /// frames than the whole file has (and the same number each time): never a crash, never
    /// audio made up past the cut.
    func testHeadersCutAnywhereFailCleanly() throws {
        let library = try Fixtures.library()
        for path in ["Alpha Band/Second Wind/01 - Ёлка.ogg", "Alpha Band/First Light/02 - Noon.mp3", "Alpha Band/First Light/01 - Dawn.flac", "untagged.wav"] {
            let whole = try Data(contentsOf: URL(fileURLWithPath: library + "/" + path))
            let complete = try decodeAll(try open(library + "/" + path)).count
            let directory = TemporaryDirectory("nimbus-cut")
            var opened = 0
            for length in stride(from: 0, to: min(whole.count, 12_000), by: 97) {
                let cut = directory.file("cut." + (path as NSString).pathExtension)
                try whole.prefix(length).write(to: URL(fileURLWithPath: cut))
                var decoded: Set<Int> = []
                for _ in 0..<3 {
                    guard let decoder = try? open(cut) else { continue }
                    opened += 1
                    // A cut file may also fail part way; what it gave before that counts.
                    var bytes = 0
                    var buffer = [UInt8](repeating: 0, count: 4096 * decoder.format.frameBytes)
                    while let frames = try? buffer.withUnsafeMutableBytes({ try decoder.decode(into: $0) }), frames > 0 {
                        bytes += frames * decoder.format.frameBytes
                    }
                    decoded.insert(bytes)
                }
                XCTAssertLessThanOrEqual(decoded.count, 1, "\(path) cut at \(length): the same each time")
                if let bytes = decoded.first { XCTAssertLessThan(bytes, complete, "\(path) cut at \(length): less than the whole") }
            }
            XCTAssertGreaterThan(opened, 0, "\(path): some cuts still open (their headers are whole)")
        }
    }

    func testCorruptFilesFailCleanly() throws {
        let library = try Fixtures.library()
        XCTAssertThrowsError(try open(library + "/broken/random.mp3"))
        // Half of a 3-second file: the first half plays, then decoding ends or fails, cleanly.
        let truncated = try open(library + "/broken/truncated.flac")
        var frames = 0
        var buffer = [UInt8](repeating: 0, count: 4096 * truncated.format.frameBytes)
        while let got = try? buffer.withUnsafeMutableBytes({ try truncated.decode(into: $0) }), got > 0 { frames += got }
        XCTAssertGreaterThan(frames, 44_100, "the part before the cut plays")
        XCTAssertLessThan(frames, 132_300, "nothing is made up after the cut")
    }
}

/// A file whose reads fail from `failAfter` on once armed (after the decoder opened it),
/// like a download whose server went away.
private final class FailingStream: NimbusInput.InputStream {
    private let file: FileInputStream
    private let failAfter: Int64
    var armed = false
    init(_ file: FileInputStream, failAfter: Int64) {
        self.file = file
        self.failAfter = failAfter
    }
    var uri: String { file.uri }
    var size: Int64? { file.size }
    var position: Int64 { file.position }
    var isSeekable: Bool { true }
    var mimeType: String? { nil }
    func read(into buffer: UnsafeMutableRawBufferPointer) throws(InputError) -> Int {
        guard armed else { return try file.read(into: buffer) }
        guard file.position < failAfter else { throw InputError("the server went away") }
        let count = Int(min(Int64(buffer.count), failAfter - file.position))
        return try file.read(into: UnsafeMutableRawBufferPointer(rebasing: buffer[..<count]))
    }
    func seek(to offset: Int64) throws(InputError) { try file.seek(to: offset) }
}

/// MPD's ReplayGain arithmetic: gain plus preamp in dB, limited by the peak, the missing preamp
/// for untagged songs, album values falling back to track ones, `auto` following `random`.
final class ReplayGainTests: XCTestCase {
    func testTagsAreReadFromID3AndVorbisComments() throws {
        let directory = TemporaryDirectory("nimbus-replaygain")
        try AudioFixtures.writeSineWAV(to: directory.file("a.wav"), frames: 44_100)
        _ = try runTool("lame", ["--quiet", "--tv", "TXXX=REPLAYGAIN_TRACK_GAIN=-3.50 dB", "--tv", "TXXX=replaygain_album_peak=0.75",
                                 directory.file("a.wav"), directory.file("a.mp3")])
        _ = try runTool("oggenc", ["-Q", "-c", "REPLAYGAIN_ALBUM_GAIN=+1.25 dB", "-o", directory.file("a.ogg"), directory.file("a.wav")])
        for (name, expected) in [
            ("a.mp3", ReplayGainInfo(trackGain: -3.5, albumPeak: 0.75)), ("a.ogg", ReplayGainInfo(albumGain: 1.25)),
        ] {
            let path = directory.file(name)
            let plugin = try XCTUnwrap(DecoderRegistry.standard.plugin(forPath: path))
            XCTAssertEqual(try plugin.scan(try FileInputStream(path: path), options: ScanOptions()).replayGain, expected, name)
        }
    }

    func testScales() {
        var settings = ReplayGainSettings()
        let tagged = ReplayGainInfo(trackGain: -6.0206, trackPeak: 0.4, albumGain: 3, albumPeak: 0.9)
        XCTAssertEqual(settings.scale(for: tagged), 1, "off")
        settings.mode = "track"
        XCTAssertEqual(settings.scale(for: tagged), 0.5, accuracy: 0.001)
        settings.preamp = 6.0206
        XCTAssertEqual(settings.scale(for: tagged), 1, accuracy: 0.001)
        settings.preamp = 0
        settings.mode = "album"
        XCTAssertEqual(settings.scale(for: tagged), 1 / 0.9, accuracy: 0.001, "limited by the album peak")
        settings.limit = false
        XCTAssertEqual(settings.scale(for: tagged), 1.4125, accuracy: 0.001, "+3 dB without the limit")
        XCTAssertEqual(settings.scale(for: ReplayGainInfo(trackGain: -6.0206)), 0.5, accuracy: 0.001, "album falls back to track")
        settings.missingPreamp = -6.0206
        XCTAssertEqual(settings.scale(for: ReplayGainInfo()), 0.5, accuracy: 0.001, "untagged")
        settings.mode = "auto"
        settings.random = true
        XCTAssertEqual(settings.scale(for: tagged), 0.5, accuracy: 0.001, "auto while shuffled: track")
    }
}
