import CMpg123
import Foundation
import NimbusHarness
import XCTest

/// Decodes an MP3 made by Debian's lame through libmpg123's feed API.
final class Mpg123BindingTests: XCTestCase {
    func testGaplessDecodeGivesTheEncodedFrameCount() throws {
        let directory = TemporaryDirectory()
        let wav = directory.file("sine.wav")
        let mp3 = directory.file("sine.mp3")
        try runTool("sox", ["-n", "-r", "44100", "-c", "2", "-b", "16", wav, "synth", "1.0", "sine", "440", "vol", "0.5"])
        try runTool("lame", ["--quiet", "-b", "128", wav, mp3])
        let encoded = Array(try Data(contentsOf: URL(fileURLWithPath: mp3)))

        var error: Int32 = 0
        let handle = try XCTUnwrap(mpg123_new(nil, &error))
        defer { mpg123_delete(handle) }
        XCTAssertEqual(mpg123_param2(handle, Int32(MPG123_ADD_FLAGS.rawValue), Int(MPG123_QUIET.rawValue), 0), MPG123_OK.rawValue)
        XCTAssertEqual(mpg123_format_none(handle), MPG123_OK.rawValue)
        XCTAssertEqual(
            mpg123_format(handle, 44100, Int32(MPG123_STEREO.rawValue), Int32(MPG123_ENC_SIGNED_16.rawValue)),
            MPG123_OK.rawValue)
        XCTAssertEqual(mpg123_open_feed(handle), MPG123_OK.rawValue)
        XCTAssertEqual(encoded.withUnsafeBufferPointer { mpg123_feed(handle, $0.baseAddress, $0.count) }, MPG123_OK.rawValue)

        var pcm = [UInt8](repeating: 0, count: 16384)
        var total = 0
        var peak: Int16 = 0
        while true {
            var done = 0
            let status = pcm.withUnsafeMutableBufferPointer { mpg123_read(handle, $0.baseAddress, $0.count, &done) }
            pcm.withUnsafeBytes { raw in
                for sample in raw.bindMemory(to: Int16.self).prefix(done / 2) { peak = max(peak, sample) }
            }
            total += done
            if status == MPG123_NEED_MORE.rawValue || status == MPG123_DONE.rawValue { break }
            XCTAssertTrue(status == MPG123_OK.rawValue || status == MPG123_NEW_FORMAT.rawValue, "status \(status)")
        }
        XCTAssertEqual(total / 4, 44100, "lame's gapless header trims encoder delay and padding")
        XCTAssertGreaterThan(peak, 14000)
    }
}
