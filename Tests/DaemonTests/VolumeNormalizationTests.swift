import Foundation
import NimbusHarness
import XCTest

/// MPD's `volume_normalization` and top-level `mixer_type`, side by side with Debian's MPD on
/// the same file: a −54 dBFS sine, played through a `pipe` output into a file, is lifted by the
/// same slow gain (to about −26 dBFS after ten seconds) by both.
final class VolumeNormalizationTests: XCTestCase {
    /// The peak of each second of raw 16-bit stereo, in dBFS.
    private func peaksPerSecond(_ path: String) throws -> [Double] {
        let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: path)))
        let samples = stride(from: 0, to: bytes.count - 1, by: 2).map { Int16(bitPattern: UInt16(bytes[$0]) | UInt16(bytes[$0 + 1]) << 8) }
        return stride(from: 0, to: samples.count, by: 44100 * 2).map { start in
            let peak = samples[start..<min(samples.count, start + 44100 * 2)].map { abs(Int($0)) }.max() ?? 0
            return 20 * log10(Double(max(peak, 1)) / 32768)
        }
    }

    private func play(_ kind: ServerProcess.Kind, music: TemporaryDirectory, extra: String, into raw: String) throws -> [Double] {
        let config = """
            \(extra)
            audio_output {
                type "pipe"
                name "to a file"
                command "cat > '\(raw)'"
                format "44100:16:2"
                mixer_type "none"
            }
            """
        let daemon = try ServerProcess(kind, config: config, musicDirectory: music.path, nullOutput: false)
        let client = try daemon.connect()
        _ = try client.request("update")
        XCTAssertTrue(waitUntil(timeout: 30) { (try? client.request("lsinfo"))?.contains("file: sine.wav") == true })
        for command in ["add sine.wav", "play"] { XCTAssertEqual(try client.request(command), ["OK"], command) }
        XCTAssertTrue(client.waitForStatus("state: stop", timeout: 60), "playback did not end")
        XCTAssertTrue(waitUntil { (try? FileManager.default.attributesOfItem(atPath: raw)[.size] as? Int) == 44100 * 4 * 10 }, "every frame written")
        return try peaksPerSecond(raw)
    }

    func testAQuietSongIsLiftedAsMPDLiftsIt() throws {
        let music = TemporaryDirectory("nimbus-normalize")
        _ = try runTool("sox", ["-n", "-r", "44100", "-c", "2", "-b", "16", music.file("sine.wav"), "synth", "10", "sine", "1000", "vol", "-54dB"])
        let untouched = try play(.nimbus, music: music, extra: "", into: music.file("plain.raw"))
        XCTAssertEqual(untouched.last ?? 0, -54, accuracy: 0.3, "without the setting the song plays as it is")
        let nimbus = try play(.nimbus, music: music, extra: "volume_normalization \"yes\"", into: music.file("nimbus.raw"))
        XCTAssertEqual(nimbus.last ?? 0, -24, accuracy: 1.5, "lifted by about 30 dB within ten seconds")
        try XCTSkipUnless(ServerProcess.mpdAvailable, "Debian's mpd is not installed")
        let mpd = try play(.mpd, music: music, extra: "volume_normalization \"yes\"", into: music.file("mpd.raw"))
        print("volume_normalization: Nimbus \(nimbus) dBFS, MPD \(mpd) dBFS")
        XCTAssertEqual(nimbus.count, mpd.count)
        for (second, (ours, theirs)) in zip(nimbus, mpd).enumerated() {
            XCTAssertEqual(ours, theirs, accuracy: 0.5, "second \(second): Nimbus \(ours) dBFS, MPD \(theirs) dBFS")
        }
    }

    /// The top-level `mixer_type` is what outputs without their own take (MPD's fallback): a
    /// null output, which has no hardware control, gets software volume or none.
    func testTheTopLevelMixerTypeIsEachOutputsDefault() throws {
        // MPD 0.24 leaves `volume:` out of `status` when no output has a mixer.
        for (setting, volume) in [("software", "volume: 100"), ("none", nil), ("null", nil)] {
            let daemon = try ServerProcess(.nimbus, config: "mixer_type \"\(setting)\"")
            let status = try daemon.connect().request("status")
            XCTAssertEqual(status.first { $0.hasPrefix("volume: ") }, volume, "\(setting): \(status)")
        }
        let broken = try ServerProcess(.nimbus, config: "mixer_type \"loud\"", waitForReady: false)
        XCTAssertEqual(broken.waitForExit(), 1)
        XCTAssertTrue(broken.output.contains("Unrecognized mixer type: \"loud\""), broken.output)
    }
}
