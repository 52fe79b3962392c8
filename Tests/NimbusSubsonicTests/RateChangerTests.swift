@testable import NimbusTranscode
import XCTest

/// The transcodes' rate change (libswresample): as long as the song, the tone at its pitch and
/// level, and the same samples however the decoder cuts its chunks.
final class RateChangerTests: XCTestCase {
    private func tone(hz: Double, seconds: Double, rate: Double) -> [Float] {
        let frames = Int(seconds * rate)
        var samples = [Float](repeating: 0, count: frames * 2)
        for frame in 0..<frames {
            let value = Float(0.5 * sin(2 * Double.pi * hz * Double(frame) / rate))
            samples[2 * frame] = value
            samples[2 * frame + 1] = -value
        }
        return samples
    }

    private func changed(_ input: [Float], chunk: Int) throws -> [Float] {
        let changer = try RateChanger(from: 44100, to: 48000, channels: 2)
        var output: [Float] = []
        var start = 0
        while start < input.count {
            let end = min(input.count, start + chunk * 2)
            input[start..<end].withUnsafeBufferPointer { _ = changer.process($0, into: &output) }
            start = end
        }
        changer.flush(into: &output)
        return output
    }

    func testA44100HzToneBecomesThe48000HzToneOfTheSameLength() throws {
        let output = try changed(tone(hz: 1000, seconds: 5, rate: 44100), chunk: 4096)
        XCTAssertEqual(Double(output.count / 2), 240_000, accuracy: 2, "five seconds in, five seconds out")
        // The middle three seconds: 1,000 upward zero crossings a second on the left, the
        // right the left's negation, and the level of a 0.5 sine.
        let middle = Array(output[(48000 * 2)..<(4 * 48000 * 2)])
        var crossings = 0
        var power = 0.0
        for frame in 1..<(middle.count / 2) {
            if middle[2 * (frame - 1)] < 0 && middle[2 * frame] >= 0 { crossings += 1 }
            power += Double(middle[2 * frame] * middle[2 * frame])
            XCTAssertEqual(middle[2 * frame], -middle[2 * frame + 1], accuracy: 1e-6)
        }
        XCTAssertEqual(crossings, 3000, "the pitch is kept")
        XCTAssertEqual((power / Double(middle.count / 2)).squareRoot(), 0.5 / 2.0.squareRoot(), accuracy: 0.005)
    }

    func testTheDecodersChunkingDoesNotChangeTheSamples() throws {
        let input = tone(hz: 440, seconds: 1, rate: 44100)
        let whole = try changed(input, chunk: 44100)
        let pieces = try changed(input, chunk: 1000)
        XCTAssertEqual(whole.count, pieces.count)
        for index in stride(from: 0, to: min(whole.count, pieces.count), by: 97) {
            XCTAssertEqual(whole[index], pieces[index], accuracy: 1e-5)
        }
    }
}
