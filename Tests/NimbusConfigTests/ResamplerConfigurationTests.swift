import NimbusConfig
import NimbusModel
import XCTest

/// MPD's resampler settings read as MPD reads them, always meaning libsoxr.
final class ResamplerConfigurationTests: XCTestCase {
    private func configuration(_ text: String) throws -> DaemonConfiguration {
        try DaemonConfiguration.from(ConfigFile.parse(text, file: "mpd.conf"), home: "/home/u")
    }

    func testDefaultIsMPDsSoxrHigh() throws {
        XCTAssertEqual(try configuration("").resampler, ResamplerSettings(quality: .high, threads: 1))
    }

    func testResamplerBlock() throws {
        let config = try configuration("resampler {\n plugin \"soxr\"\n quality \"very high\"\n threads \"2\"\n}")
        XCTAssertEqual(config.resampler, ResamplerSettings(quality: .veryHigh, threads: 2))
        XCTAssertTrue(config.warnings.isEmpty, "\(config.warnings)")
    }

    func testOlderSamplerateConverterLine() throws {
        XCTAssertEqual(try configuration("samplerate_converter \"soxr medium\"").resampler.quality, .medium)
        let libsamplerate = try configuration("samplerate_converter \"Best Sinc Interpolator\"")
        XCTAssertEqual(libsamplerate.resampler.quality, .veryHigh)
        XCTAssertTrue(libsamplerate.warnings.contains { $0.contains("libsoxr") }, "says what it used instead")
        let both = try configuration("samplerate_converter \"soxr quick\"\nresampler {\n quality \"low\"\n}")
        XCTAssertEqual(both.resampler.quality, .low, "the block wins")
    }

    func testBadValuesFailAsInMPD() {
        XCTAssertThrowsError(try configuration("resampler {\n plugin \"soxr\"\n quality \"ultra\"\n}")) { error in
            XCTAssertTrue("\(error)".contains("Invalid quality setting: ultra"), "\(error)")
        }
        XCTAssertThrowsError(try configuration("samplerate_converter \"magic\""))
        XCTAssertThrowsError(try configuration("resampler {\n plugin \"speex\"\n}"))
    }
}
