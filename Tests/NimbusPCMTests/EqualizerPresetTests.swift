import NimbusModel
import XCTest

@testable import NimbusPCM

/// The preset text parser (Equalizer APO / AutoEq / REW lines), the biquad design and the
/// sound chain's neutral and fading states.
final class EqualizerPresetTests: XCTestCase {
    func testAutoEqLinesParseAndExportBack() throws {
        let preset = try EqualizerPreset.parse(lines: [
            "# from AutoEq", "", "Preamp: -6.2 dB", "Filter 1: ON PK Fc 105 Hz Gain -3.1 dB Q 0.70", "Filter 2: OFF LSC Fc 105 Hz Gain 5,5 dB Q 0.71",
            "Filter: ON HP Fc 20 Hz", "Filter 4: ON PEQ Fc 1000 Hz Gain 2 dB BW Oct 1",
        ])
        XCTAssertEqual(preset.preamp, -6.2)
        XCTAssertEqual(preset.bands.count, 4)
        XCTAssertEqual(preset.bands[0], EqualizerBand(kind: .peaking, frequency: 105, gain: -3.1, q: 0.7))
        XCTAssertFalse(preset.bands[1].enabled)
        XCTAssertEqual(preset.bands[1].gain, 5.5, "a decimal comma reads as a point")
        XCTAssertEqual(preset.bands[2].q, 0.7071, "pass bands default to Butterworth")
        XCTAssertEqual(preset.bands[3].q, 2.0.squareRoot(), accuracy: 1e-9, "one octave is Q √2")
        XCTAssertEqual(try EqualizerPreset.parse(lines: preset.lines), preset, "export reads back as the same preset")
    }

    func testMalformedLinesAreNamed() {
        let cases: [(String, String)] = [
            ("Preamp: loud", "Preamp"), ("Filter 1: ON PK Fc 100 Hz Q 1", "needs Gain"), ("Filter 1: ON XX Fc 100 Hz", "unknown filter type"),
            ("Filter 1: MAYBE PK Fc 100 Hz Gain 1 dB", "ON or OFF"), ("Filter 1: ON PK Fc 100 Gain 1 dB", "unit Hz"),
            ("Channel: L", "not a command"), ("GraphicEQ: 20 0; 40 1", "not a command"), ("Filter 1: ON PK Fc 100 Hz Gain 99 dB", "±30"),
            ("no colon", "expected"),
        ]
        for (line, reason) in cases {
            XCTAssertThrowsError(try EqualizerPreset.parse(lines: ["Preamp: 0 dB", line]), line) { error in
                let problem = error as? EqualizerPreset.ParseError
                XCTAssertEqual(problem?.line, 2, line)
                XCTAssertTrue(problem?.description.contains(reason) == true, "\(line): \(problem?.description ?? "")")
            }
        }
    }

    func testCookbookPeakingSectionHasItsGainAtItsFrequency() {
        let band = EqualizerBand(kind: .peaking, frequency: 1000, gain: 6, q: 1)
        let section = BiquadCoefficients(band, sampleRate: 48000)
        XCTAssertEqual(section.magnitudeDB(at: 1000, sampleRate: 48000), 6, accuracy: 1e-9)
        XCTAssertEqual(section.magnitudeDB(at: 20, sampleRate: 48000), 0, accuracy: 0.01)
        let shelf = BiquadCoefficients(EqualizerBand(kind: .lowShelf, frequency: 100, gain: -5, q: 0.71), sampleRate: 44100)
        XCTAssertEqual(shelf.magnitudeDB(at: 10, sampleRate: 44100), -5, accuracy: 0.05)
        // 22,050 Hz at 44.1 kHz is Nyquist: clamped below it, still a finite, sane section.
        let top = BiquadCoefficients(EqualizerBand(kind: .peaking, frequency: 22050, gain: 3, q: 2), sampleRate: 44100)
        XCTAssertTrue([top.b0, top.b1, top.b2, top.a1, top.a2].allSatisfy(\.isFinite))
    }

    func testHeadroomCoversTheLargestBoost() {
        let preset = EqualizerPreset(preamp: -2, bands: [EqualizerBand(kind: .peaking, frequency: 3000, gain: 8, q: 2)])
        XCTAssertEqual(preset.peakGainDB(sampleRate: 44100), 6, accuracy: 0.01)
    }

    func testNeutralChainIsNotRunAndAChangeFadesIn() {
        let chain = SoundChain()
        XCTAssertFalse(chain.isActive, "off by default")
        let cut = EqualizerPreset(preamp: -6.0206, bands: [])
        chain.update(SoundSettings(presetName: "cut", equalizer: cut))
        // The device opens with a preset already chosen.
        XCTAssertEqual(chain.open(FloatFormat(sampleRate: 44100, channels: 2)), FloatFormat(sampleRate: 44100, channels: 2))
        XCTAssertTrue(chain.isActive)
        var samples = [Float](repeating: 0.5, count: 2 * 4410)
        samples.withUnsafeMutableBufferPointer { _ = chain.filter($0) }
        XCTAssertEqual(samples[0], 0.25, accuracy: 1e-6, "first use: no fade, the preset at once")
        chain.update(.neutral)
        samples = [Float](repeating: 0.5, count: 2 * 4410)
        samples.withUnsafeMutableBufferPointer { _ = chain.filter($0) }
        XCTAssertEqual(samples[0], 0.25, accuracy: 1e-3, "a change fades from the old filters…")
        XCTAssertEqual(samples[2 * 441], 0.375, accuracy: 0.01, "…half way after 10 ms…")
        XCTAssertEqual(samples[2 * 4000], 0.5, accuracy: 1e-6, "…to the new")
        XCTAssertFalse(chain.isActive, "neutral again once the fade is done")
        chain.update(SoundSettings(balance: 0.5))
        samples = [Float](repeating: 0.5, count: 2)
        chain.reset()
        samples.withUnsafeMutableBufferPointer { _ = chain.filter($0) }
        XCTAssertEqual(samples, [0.25, 0.5], "balance right halves the left")
    }

    func testDitherIsTriangularAndCentred() {
        var dither = Dither()
        var sum = 0.0
        var extreme: Float = 0
        for _ in 0..<100_000 {
            let value = dither.next()
            sum += Double(value)
            extreme = max(extreme, abs(value))
        }
        XCTAssertEqual(sum / 100_000, 0, accuracy: 0.01)
        XCTAssertLessThanOrEqual(extreme, 1, "±1 LSB at most")
        XCTAssertGreaterThan(extreme, 0.9)
    }
}
