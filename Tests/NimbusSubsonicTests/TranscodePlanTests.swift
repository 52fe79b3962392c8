import NimbusTranscode
import XCTest

/// What a phone gets for a `stream` request: the pure decision, case by case.
final class TranscodePlanTests: XCTestCase {
    private func decide(
        _ format: String?, _ kbps: Int, suffix: String = "flac", songKbps: Int = 900, client: String? = nil,
        defaults: TranscodeDefaults = TranscodeDefaults()
    ) throws -> TranscodeDecision {
        try TranscodePlan.decide(
            TranscodeRequest(format: format, maxKbps: kbps, client: client, songSuffix: suffix, songKbps: songKbps), defaults: defaults)
    }

    func testAskedFormatsAndRates() throws {
        XCTAssertEqual(try decide("opus", 96), .transcode(.opus, kbps: 96))
        XCTAssertEqual(try decide("mp3", 0), .transcode(.mp3, kbps: 192), "a format alone: its usual rate")
        XCTAssertEqual(try decide("mp3", 150), .transcode(.mp3, kbps: 128), "LAME's rate at or below the asked one")
        XCTAssertEqual(try decide("MP3", 1000), .transcode(.mp3, kbps: 320))
        XCTAssertEqual(try decide("aac", 128), .transcode(.aac, kbps: 128))
        XCTAssertEqual(try decide("raw", 64), .original)
        XCTAssertThrowsError(try decide("wma", 64))
    }

    func testSongsAlreadySmallEnoughGoOutAsTheyAre() throws {
        XCTAssertEqual(try decide("mp3", 192, suffix: "mp3", songKbps: 128), .original, "an MP3 within the rate")
        XCTAssertEqual(try decide("mp3", 128, suffix: "mp3", songKbps: 320), .transcode(.mp3, kbps: 128), "an MP3 above it")
        XCTAssertEqual(try decide(nil, 320, suffix: "ogg", songKbps: 160), .original, "a rate alone, any format within it")
        XCTAssertEqual(try decide(nil, 96, suffix: "flac", songKbps: 900), .transcode(.opus, kbps: 96), "a rate alone: Opus")
        XCTAssertEqual(try decide("opus", 128, suffix: "opus", songKbps: 96), .original)
        XCTAssertEqual(try decide("mp3", 320, suffix: "ogg", songKbps: 100), .transcode(.mp3, kbps: 96), "never more bits than the song")
    }

    func testDefaultsForPhonesThatAskForNothing() throws {
        XCTAssertEqual(try decide(nil, 0), .original, "no default: the file")
        let box = TranscodeDefaults(format: .mp3, kbps: 128, originalClients: ["Purist"])
        XCTAssertEqual(try decide(nil, 0, defaults: box), .transcode(.mp3, kbps: 128))
        XCTAssertEqual(try decide(nil, 0, client: "purist", defaults: box), .original, "a client spared, by name without case")
        XCTAssertEqual(try decide(nil, 0, client: "Purist", defaults: box), .original)
        XCTAssertEqual(try decide("opus", 64, client: "Purist", defaults: box), .transcode(.opus, kbps: 64), "it asked")
        XCTAssertEqual(try decide(nil, 256, defaults: box), .transcode(.mp3, kbps: 256), "a rate alone takes the default format")
    }

    func testTheEstimateCoversTheEncode() {
        XCTAssertEqual(TranscodePlan.estimatedLength(seconds: 0, kbps: 128), 4096)
        let fiveMinutes = TranscodePlan.estimatedLength(seconds: 300, kbps: 128)
        XCTAssertGreaterThan(fiveMinutes, 300 * 128_000 / 8)
        XCTAssertLessThan(fiveMinutes, 300 * 128_000 / 8 * 105 / 100)
    }
}
