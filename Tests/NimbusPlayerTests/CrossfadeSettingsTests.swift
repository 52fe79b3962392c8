import NimbusDecoder
@testable import NimbusPlayer
import XCTest

/// MPD's rules for when and how long two songs overlap.
final class CrossfadeSettingsTests: XCTestCase {
    func testMixRampProfilesInterpolateLikeMPD() {
        let profile = "-90.00 0.00;-20.00 1.00;-14.00 3.00;0.00 8.00"
        XCTAssertEqual(MixRampTags.time(in: profile, reaching: -17) ?? .nan, 2.0, accuracy: 1e-6, "halfway between two pairs")
        XCTAssertEqual(MixRampTags.time(in: profile, reaching: -14) ?? .nan, 3.0, accuracy: 1e-6, "an exact pair")
        XCTAssertEqual(MixRampTags.time(in: profile, reaching: -95) ?? .nan, 0.0, accuracy: 1e-6, "quieter than any pair: the first")
        XCTAssertNil(MixRampTags.time(in: profile, reaching: 3), "never that loud")
        XCTAssertNil(MixRampTags.time(in: "-90.00;-17 2", reaching: -17), "a pair without its time")
        XCTAssertNil(MixRampTags.time(in: "", reaching: -17))
    }

    func testOverlapFollowsMixRampWithBothProfilesAndCrossfadeWithout() {
        let tail = MixRampTags(end: "-90.00 0.00;-17.00 2.00")
        let head = MixRampTags(start: "-90.00 0.00;-17.00 1.50")
        let settings = CrossfadeSettings(seconds: 5, mixRampDB: -17, mixRampDelay: 1)
        let mixed = settings.overlap(outgoing: tail, incoming: head)
        XCTAssertEqual(mixed?.seconds ?? .nan, 2.5, accuracy: 1e-6)
        XCTAssertEqual(mixed?.additive, true, "MixRamp sums the songs")
        XCTAssertNil(CrossfadeSettings(seconds: 5, mixRampDB: -17, mixRampDelay: 4).overlap(outgoing: tail, incoming: head),
            "a delay longer than the profiles allow: no overlap (MPD)")
        let plain = settings.overlap(outgoing: tail, incoming: MixRampTags())
        XCTAssertEqual(plain?.seconds, 5, "a missing profile falls back to the crossfade time")
        XCTAssertEqual(plain?.additive, false)
        // ReplayGain moves the level the profile is read at: +3 dB applied means -20 dB measured.
        let louder = MixRampTags(start: "-90.00 0.00;-20.00 0.50;-17.00 1.50", gainDB: 3)
        XCTAssertEqual(settings.overlap(outgoing: tail, incoming: louder)?.seconds ?? .nan, 1.5, accuracy: 1e-6)
        XCTAssertNil(CrossfadeSettings(seconds: 0).overlap(outgoing: nil, incoming: nil), "crossfade off")
    }

    /// What clients may send (`mixrampdb nan`, `mixrampdelay inf`, `crossfade 1e9`) gives a
    /// finite overlap or none, never a trap.
    func testOutlandishSettingsGiveAFiniteOverlapOrNone() {
        let tail = MixRampTags(end: "-90.00 0.00;-17.00 2.00")
        let head = MixRampTags(start: "-90.00 0.00;-17.00 1.50")
        for settings in [
            CrossfadeSettings(seconds: 5, mixRampDB: .nan, mixRampDelay: 1), CrossfadeSettings(seconds: 5, mixRampDB: .infinity, mixRampDelay: 1),
            CrossfadeSettings(seconds: 5, mixRampDB: -17, mixRampDelay: .infinity), CrossfadeSettings(seconds: 1e9),
        ] {
            if let overlap = settings.overlap(outgoing: tail, incoming: head) {
                XCTAssertTrue(overlap.seconds.isFinite && overlap.seconds > 0 && overlap.seconds <= 30, "\(settings): \(overlap)")
            }
            XCTAssertLessThanOrEqual(settings.lookaheadSeconds, 30)
        }
        XCTAssertFalse(CrossfadeSettings(seconds: 1e9).canFade(songSeconds: 300), "a fade longer than any song never starts")
    }

    func testShortSongsNeverFade() {
        let settings = CrossfadeSettings(seconds: 10)
        XCTAssertTrue(settings.canFade(songSeconds: 20))
        XCTAssertFalse(settings.canFade(songSeconds: 19.9), "MPD's 20 s minimum")
        XCTAssertFalse(CrossfadeSettings(seconds: 25).canFade(songSeconds: 24), "shorter than the fade")
        XCTAssertFalse(settings.canFade(songSeconds: nil), "unknown length (a stream)")
    }

    func testEqualPowerCurve() {
        // Equal power: the squares of the two gains sum to 1 all along, from 0 to full.
        var gains = FadeCurve(frames: 100, additive: false).gains(from: 0)
        for position in 0...100 {
            let (fadeIn, fadeOut) = gains.next()
            XCTAssertEqual(fadeIn * fadeIn + fadeOut * fadeOut, 1, accuracy: 1e-5, "frame \(position)")
            if position == 0 { XCTAssertEqual(fadeIn, 0) }
            if position == 100 { XCTAssertEqual(fadeOut, 0, accuracy: 1e-6) }
        }
        var flat = FadeCurve(frames: 100, additive: true).gains(from: 50)
        XCTAssertTrue(flat.next() == (1, 1), "MixRamp sums at full level")
        // The frame-by-frame rotation follows sin/cos, from any starting point, to the end.
        var rotation = FadeCurve(frames: 44100, additive: false).gains(from: 1000)
        for position in 1000..<44200 {
            let (fadeIn, fadeOut) = rotation.next()
            let angle = Double(min(position, 44100)) / 44100 * .pi / 2
            let expected = position < 44100 ? (Float(sin(angle)), Float(cos(angle))) : (1, 0)
            if abs(fadeIn - expected.0) > 1e-5 || abs(fadeOut - expected.1) > 1e-5 {
                return XCTFail("frame \(position): \(fadeIn), \(fadeOut) instead of \(expected)")
            }
        }
    }
}
