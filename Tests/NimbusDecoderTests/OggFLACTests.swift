import Foundation
import NimbusDecoder
import NimbusHarness
import NimbusInput
import NimbusModel
import XCTest

/// FLAC in Ogg (`flac --ogg`, `.oga`), MPD's `oggflac`: found after Vorbis and Opus decline
/// the stream, with the exact length, the tags, every sample of a ramp and an exact seek.
final class OggFLACTests: XCTestCase {
    private static let frames = 30_000

    private func fixture() throws -> TemporaryDirectory {
        let directory = TemporaryDirectory("nimbus-oggflac")
        let wav = directory.file("ramp.wav")
        try AudioFixtures.writeRampWAV(to: wav, frames: Self.frames)
        try runTool("flac", ["-s", "--ogg", "-T", "TITLE=In Ogg", "-T", "ARTIST=Ogg Band", "-o", directory.file("song.oga"), wav])
        return directory
    }

    /// Every frame's left sample as the decoder gives it.
    private func left(_ decoder: any AudioDecoder) throws -> [UInt16] {
        var samples: [UInt16] = []
        var buffer = [UInt16](repeating: 0, count: 4096 * 2)
        while true {
            let count = try buffer.withUnsafeMutableBytes { try decoder.decode(into: $0) }
            if count == 0 { return samples }
            for frame in 0..<count { samples.append(buffer[frame * 2]) }
        }
    }

    func testAnOggFLACFileScansDecodesAndSeeksExactly() throws {
        let directory = try fixture()
        let path = directory.file("song.oga")
        let plugin = try XCTUnwrap(DecoderRegistry.standard.plugin(forSuffix: "oga"))
        let scanned = try plugin.scan(try FileInputStream(path: path), options: ScanOptions())
        XCTAssertEqual(scanned.format?.description, "44100:16:2")
        XCTAssertEqual(Double(try XCTUnwrap(scanned.tag.duration)), Double(Self.frames) * 1000 / 44100, accuracy: 1)
        XCTAssertEqual(scanned.tag.values(.title), ["In Ogg"])
        XCTAssertEqual(scanned.tag.values(.artist), ["Ogg Band"])
        let decoder = try DecoderRegistry.standard.openDecoder(for: path, stream: try FileInputStream(path: path))
        XCTAssertEqual(try left(decoder), (0..<Self.frames).map { UInt16($0 & 0xFFFF) }, "every sample of the ramp")
        let sought = try DecoderRegistry.standard.openDecoder(for: path, stream: try FileInputStream(path: path))
        try sought.seek(toFrame: 12_345)
        XCTAssertEqual(try left(sought).first, 12_345, "the seek lands on the frame")
    }
}
