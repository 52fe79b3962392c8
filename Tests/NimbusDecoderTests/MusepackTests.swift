import Foundation
import NimbusDecoder
import NimbusHarness
import NimbusInput
import NimbusModel
import XCTest

/// Musepack through libmpcdec against a file made here with Debian's mpcenc: the exact
/// length (FFmpeg said 3.343 s for 5 s), every frame decoded once, a seek to the frame, the
/// APEv2 tags, and a sine that is still that sine.
final class MusepackTests: XCTestCase {
    private static let frames = 44100 * 5

    private func fixture() throws -> TemporaryDirectory {
        let directory = TemporaryDirectory("nimbus-musepack")
        let wav = directory.file("sine.wav")
        try AudioFixtures.writeStereo16WAV(to: wav, frames: Self.frames) { index in
            let sample = UInt16(bitPattern: Int16(AudioFixtures.sineSample(frame: index, frequency: 1000, amplitude: 0.5).rounded()))
            return (sample, sample)
        }
        try runTool("mpcenc", ["--silent", "--overwrite", "--tag", "Title=Sine", "--tag", "Artist=Test Band", wav, directory.file("sine.mpc")])
        return directory
    }

    private func frames(_ decoder: any AudioDecoder) throws -> [Float] {
        var left: [Float] = []
        var buffer = [Float](repeating: 0, count: 4096 * 2)
        while true {
            let count = try buffer.withUnsafeMutableBytes { try decoder.decode(into: $0) }
            if count == 0 { return left }
            for frame in 0..<count { left.append(buffer[frame * 2]) }
        }
    }

    func testAMusepackFileHasItsExactLengthTagsAndSeeks() throws {
        try XCTSkipUnless(FileManager.default.isExecutableFile(atPath: "/usr/bin/mpcenc"), "musepack-tools is not installed")
        let directory = try fixture()
        let path = directory.file("sine.mpc")
        let plugin = try XCTUnwrap(DecoderRegistry.standard.plugin(forSuffix: "mpc"))
        XCTAssertEqual(plugin.name, "mpcdec")
        let scanned = try plugin.scan(try FileInputStream(path: path), options: ScanOptions())
        XCTAssertEqual(scanned.format?.description, "44100:f:2")
        XCTAssertEqual(scanned.tag.duration, 5000, "the stream header's exact length")
        XCTAssertEqual(scanned.tag.values(.title), ["Sine"])
        XCTAssertEqual(scanned.tag.values(.artist), ["Test Band"])
        let decoder = try DecoderRegistry.standard.openDecoder(for: path, stream: try FileInputStream(path: path))
        let left = try frames(decoder)
        XCTAssertEqual(left.count, Self.frames, "every frame once")
        // Lossy, but a 1 kHz sine at half scale stays one: its peak and its zero crossings.
        let middle = left[44100..<88200]
        XCTAssertEqual(Double(middle.max() ?? 0), 0.5, accuracy: 0.05)
        let crossings = zip(middle, middle.dropFirst()).filter { $0 < 0 && $1 >= 0 }.count
        XCTAssertEqual(crossings, 1000, accuracy: 2)
        let sought = try DecoderRegistry.standard.openDecoder(for: path, stream: try FileInputStream(path: path))
        try sought.seek(toFrame: 44100 * 3)
        XCTAssertEqual(try frames(sought).count, 44100 * 2, "the seek lands on the frame")
    }
}
