import Foundation
import NimbusDecoder
import NimbusInput
import NimbusModel
import TestSupport
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

    func testCorruptFilesFailCleanly() throws {
        let library = try Fixtures.library()
        XCTAssertThrowsError(try open(library + "/broken/random.mp3"))
        let truncated = try open(library + "/broken/truncated.flac")
        let bytes = try? decodeAll(truncated)
        XCTAssertLessThan((bytes?.count ?? 0) / 4, 132_300, "a truncated file plays what decodes")
    }
}
