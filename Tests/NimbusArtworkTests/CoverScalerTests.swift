import Foundation
import NimbusArtwork
import NimbusHarness
import XCTest

/// Scaling pictures made by Debian's ffmpeg: the shape is kept, nothing is enlarged, and
/// bytes that are not a picture (or a picture cut short or scrambled) give an error, never a
/// crash.
final class CoverScalerTests: XCTestCase {
    private var scratch: TemporaryDirectory!

    override func setUp() {
        super.setUp()
        scratch = TemporaryDirectory("nimbus-artwork")
    }

    private func picture(_ name: String, size: String) throws -> [UInt8] {
        let file = scratch.file(name)
        try runTool("ffmpeg", ["-loglevel", "error", "-y", "-f", "lavfi", "-i", "testsrc=size=\(size)", "-frames:v", "1", file])
        return Array(try Data(contentsOf: URL(fileURLWithPath: file)))
    }

    /// Width and height of JPEG bytes, read back through ffprobe.
    private func dimensions(_ jpeg: [UInt8]) throws -> [Int] {
        let file = scratch.file("out.jpg")
        try Data(jpeg).write(to: URL(fileURLWithPath: file))
        let format = try runTool("ffprobe", ["-v", "error", "-show_entries", "stream=codec_name,width,height", "-of", "csv=p=0", file])
        let fields = format.trimmingCharacters(in: .whitespacesAndNewlines).split(separator: ",")
        XCTAssertEqual(fields.first, "mjpeg", "the result is a JPEG")
        return fields.dropFirst().compactMap { Int($0) }
    }

    func testLargePicturesAreScaledKeepingTheirShape() throws {
        for (name, size, expected) in [("wide.jpg", "1200x900", [256, 192]), ("tall.png", "600x1000", [154, 256]), ("w.webp", "800x800", [256, 256])] {
            let scaled = try CoverScaler.scaled(try picture(name, size: size), size: 256)
            XCTAssertEqual(try dimensions(scaled), expected, name)
        }
    }

    func testSmallPicturesAreNotEnlarged() throws {
        let jpeg = try picture("small.jpg", size: "100x80")
        XCTAssertEqual(try CoverScaler.scaled(jpeg, size: 256), jpeg, "a JPEG that fits is sent as it is")
        XCTAssertEqual(try dimensions(try CoverScaler.scaled(try picture("small.png", size: "100x80"), size: 256)), [100, 80])
    }

    func testWhatIsNotAPictureIsAnError() throws {
        XCTAssertThrowsError(try CoverScaler.scaled([], size: 256))
        XCTAssertThrowsError(try CoverScaler.scaled(Array("not a picture at all".utf8), size: 256))
        let jpeg = try picture("cut.jpg", size: "640x480")
        XCTAssertThrowsError(try CoverScaler.scaled(Array(jpeg.prefix(20)), size: 256), "a JPEG cut after its header")
        let bomb = scratch.file("bomb.png")
        try runTool("ffmpeg", ["-loglevel", "error", "-y", "-f", "lavfi", "-i", "color=c=black:s=6000x6000", "-frames:v", "1", bomb])
        let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: bomb)))
        XCTAssertLessThan(bytes.count, 200_000, "a small file…")
        XCTAssertThrowsError(try CoverScaler.scaled(bytes, size: 256), "…declaring 36 million pixels is refused before decoding")
    }

    /// Seeded scrambles of real pictures: each gives a JPEG or an error, and the process lives.
    func testScrambledPicturesNeverCrash() throws {
        var random = SeededRandom(seed: 25)
        for original in [try picture("f.jpg", size: "320x240"), try picture("f.png", size: "320x240")] {
            for _ in 0..<150 {
                var bytes = original
                for _ in 0..<(1 + Int(random.next() % 12)) {
                    bytes[8 + Int(random.next() % UInt64(bytes.count - 8))] = UInt8(truncatingIfNeeded: random.next())
                }
                if random.next() % 4 == 0 { bytes = Array(bytes.prefix(Int(random.next() % UInt64(bytes.count)))) }
                if let scaled = try? CoverScaler.scaled(bytes, size: 128) { XCTAssertFalse(scaled.isEmpty) }
            }
        }
    }
}
