import NimbusModel
import NimbusPCM
import XCTest

/// Both rate converters (libsoxr for what is heard, libswresample for the phones'
/// transcodes), through the one protocol: as long as the song, the tone at its pitch and level,
/// and the same samples however the decoder cuts its chunks.
final class RateConverterTests: XCTestCase {
    private let conversions: [RateConversion] = [.standard, .soxr(ResamplerSettings(quality: .veryHigh, threads: 1)), .swresample]

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

    private func changed(_ input: [Float], chunk: Int, by conversion: RateConversion) -> [Float] {
        let changer = conversion.make(from: 44100, to: 48000, channels: 2)
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

    func testA44100HzToneBecomesThe48000HzToneOfTheSameLength() {
        for conversion in conversions { check44100To48000(conversion) }
    }

    private func check44100To48000(_ conversion: RateConversion) {
        let output = changed(tone(hz: 1000, seconds: 5, rate: 44100), chunk: 4096, by: conversion)
        XCTAssertEqual(Double(output.count / 2), 240_000, accuracy: 2, "\(conversion): five seconds in, five seconds out")
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
        XCTAssertEqual(crossings, 3000, "\(conversion): the pitch is kept")
        XCTAssertEqual((power / Double(middle.count / 2)).squareRoot(), 0.5 / 2.0.squareRoot(), accuracy: 0.005)
    }

    func testTheDecodersChunkingDoesNotChangeTheSamples() {
        let input = tone(hz: 440, seconds: 1, rate: 44100)
        for conversion in conversions {
            let whole = changed(input, chunk: 44100, by: conversion)
            let pieces = changed(input, chunk: 1000, by: conversion)
            XCTAssertEqual(whole.count, pieces.count, "\(conversion)")
            for index in stride(from: 0, to: min(whole.count, pieces.count), by: 97) {
                XCTAssertEqual(whole[index], pieces[index], accuracy: 1e-5, "\(conversion) at \(index)")
            }
        }
    }

    func testAResetForgetsWhatTheConverterHeld() {
        let input = tone(hz: 440, seconds: 0.5, rate: 44100)
        for conversion in conversions {
            let converter = conversion.make(from: 44100, to: 48000, channels: 2)
            var first: [Float] = []
            input.withUnsafeBufferPointer { _ = converter.process($0, into: &first) }
            converter.reset()
            var again: [Float] = []
            input.withUnsafeBufferPointer { _ = converter.process($0, into: &again) }
            XCTAssertEqual(first.count, again.count, "\(conversion): after a reset the same input gives the same output")
            for index in stride(from: 0, to: min(first.count, again.count), by: 101) {
                XCTAssertEqual(first[index], again[index], accuracy: 1e-6, "\(conversion) at \(index)")
            }
        }
    }
}
