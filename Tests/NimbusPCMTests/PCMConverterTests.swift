import Foundation
import NimbusModel
import XCTest

@testable import NimbusPCM

/// Sample format, channel and rate conversion and software volume, checked on known signals.
final class PCMConverterTests: XCTestCase {
    private let cd = AudioFormat(sampleRate: 44100, sample: .s16, channels: 2)

    private func convert(_ samples: [Int16], from input: AudioFormat, to output: AudioFormat, volume: Int = 100) -> [UInt8] {
        let converter = PCMConverter(from: input, to: output)
        var result: [UInt8] = []
        samples.withUnsafeBytes { raw in converter.convert(raw, volume: volume) { result = Array($0) } }
        return result
    }

    private func int16s(_ bytes: [UInt8]) -> [Int16] {
        bytes.withUnsafeBytes { Array($0.bindMemory(to: Int16.self)) }
    }

    func testSameFormatAtFullVolumePassesThroughByteForByte() {
        let samples: [Int16] = [0, 1, -1, 32767, -32768, 1234]
        XCTAssertEqual(int16s(convert(samples, from: cd, to: cd)), samples)
    }

    func testSoftwareVolumeFollowsMPDsCurve() {
        XCTAssertEqual(PCMConverter.gain(forVolume: 100), 1)
        XCTAssertEqual(PCMConverter.gain(forVolume: 0), 0)
        XCTAssertEqual(PCMConverter.gain(forVolume: 50), Float((exp(2.0) - 1) / (exp(4.0) - 1)), accuracy: 1e-6)
        let half = int16s(convert([16384, -16384], from: cd, to: cd, volume: 50))
        let gain = PCMConverter.gain(forVolume: 50)
        XCTAssertEqual(Double(half[0]), Double(16384 * gain), accuracy: 1)
        XCTAssertEqual(Double(half[1]), Double(-16384 * gain), accuracy: 1)
        XCTAssertEqual(int16s(convert([30000, -30000], from: cd, to: cd, volume: 0)), [0, 0])
    }

    func testSixteenToTwentyFourBitsKeepsEveryValue() {
        let output = AudioFormat(sampleRate: 44100, sample: .s24, channels: 2)
        let bytes = convert([256, -256], from: cd, to: output)
        let samples = bytes.withUnsafeBytes { Array($0.bindMemory(to: Int32.self)) }
        XCTAssertEqual(samples, [256 << 8, -256 << 8])
    }

    func testMonoIsCopiedToBothChannels() {
        let mono = AudioFormat(sampleRate: 44100, sample: .s16, channels: 1)
        XCTAssertEqual(int16s(convert([1000, -2000], from: mono, to: cd)), [1000, 1000, -2000, -2000])
    }

    func testResamplingKeepsLengthAndFrequency() {
        let input = AudioFormat(sampleRate: 44100, sample: .s16, channels: 1)
        let output = AudioFormat(sampleRate: 48000, sample: .s16, channels: 1)
        let frames = 44100
        let sine = (0..<frames).map { Int16(10000 * sin(2 * Double.pi * 1000 * Double($0) / 44100)) }
        let converter = PCMConverter(from: input, to: output)
        var out: [Int16] = []
        for start in stride(from: 0, to: frames, by: 4410) {
            sine[start..<min(frames, start + 4410)].withUnsafeBytes { raw in
                converter.convert(raw, volume: 100) { out += $0.bindMemory(to: Int16.self) }
            }
        }
        XCTAssertLessThan(out.count, 48000, "the resampler holds its latency back until the end")
        converter.flush(volume: 100) { out += $0.bindMemory(to: Int16.self) }
        XCTAssertEqual(Double(out.count), 48000, accuracy: 2, "one second in, one second out, flushed")
        // Zero crossings of a 1 kHz sine: 2000 per second, whatever the rate.
        let body = out.dropFirst(200)
        let crossings = zip(body, body.dropFirst()).filter { ($0 < 0) != ($1 < 0) }.count
        let seconds = Double(body.count) / 48000
        XCTAssertEqual(Double(crossings) / seconds, 2000, accuracy: 20)
    }
}
