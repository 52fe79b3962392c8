import Foundation
import NimbusHarness
import XCTest

/// The per-output equalizer heard through ALSA's `file` plugin at 32 bits: sample for sample
/// against ffmpeg's RBJ biquads in double precision, an AutoEq preset's response against the
/// curve its text describes, automatic headroom, and the eq* commands over TCP.
final class SoundEqualizerTests: XCTestCase {
    private var daemons: [ServerProcess] = []

    override func tearDown() {
        daemons.removeAll()
        super.tearDown()
    }

    private func start(_ music: TemporaryDirectory, format: String) throws -> (ServerProcess, ALSACapture, LineClient) {
        let started = try startCapturing(music, format: format, name: "capture-\(daemons.count)")
        daemons.append(started.daemon)
        return started
    }

    /// Plays `song` once and returns a copy of what was captured (the next play truncates it).
    private func play(_ song: String, _ client: LineClient, _ capture: ALSACapture, into path: String) throws -> String {
        for command in ["clear", "add \(song)", "play"] { XCTAssertEqual(try client.request(command), ["OK"], command) }
        XCTAssertTrue(client.waitForStatus("state: stop", timeout: 60), "playback did not stop")
        try? FileManager.default.removeItem(atPath: path)
        try FileManager.default.copyItem(atPath: capture.outputPath, toPath: path)
        return path
    }

    private static func quoted(_ lines: [String]) -> String { lines.map { "\"\($0)\"" }.joined(separator: " ") }

    /// Peaking, shelving and pass bands at 44.1 and 96 kHz: within 1e-6 of full scale of
    /// `ffmpeg -af "aformat=sample_fmts=dblp,equalizer=…:r=f64"` (both run in double).
    func testEqualizerMatchesFFmpegInDoublePrecision() throws {
        let presets: [(lines: [String], ffmpeg: String)] = [
            (
                ["Preamp: -4 dB", "Filter 1: ON PK Fc 1000 Hz Gain -6 dB Q 1.41", "Filter 2: ON PK Fc 5000 Hz Gain 4 dB Q 2"],
                "equalizer=f=1000:t=q:w=1.41:g=-6:r=f64,equalizer=f=5000:t=q:w=2:g=4:r=f64,volume=-4dB:precision=double"
            ),
            (
                ["Filter 1: ON LSC Fc 200 Hz Gain -5 dB Q 0.71", "Filter 2: ON HSC Fc 8000 Hz Gain -3 dB Q 0.71"],
                "lowshelf=f=200:t=q:w=0.71:g=-5:r=f64,highshelf=f=8000:t=q:w=0.71:g=-3:r=f64"
            ),
            (
                ["Filter 1: ON HP Fc 80 Hz Q 0.707", "Filter 2: ON LP Fc 12000 Hz Q 0.5", "Filter 3: ON PK Fc 60 Hz Gain -9 dB Q 4"],
                "highpass=f=80:t=q:w=0.707:r=f64,lowpass=f=12000:t=q:w=0.5:r=f64,equalizer=f=60:t=q:w=4:g=-9:r=f64"
            ),
        ]
        for rate in [44100, 96000] {
            let music = TemporaryDirectory("nimbus-eq")
            try runTool("sox", ["-n", "-r", "\(rate)", "-b", "24", "-c", "2", music.file("noise.flac"), "synth", "1.5", "whitenoise", "vol", "0.25"])
            let (_, capture, client) = try start(music, format: "\(rate):32:2")
            for (index, preset) in presets.enumerated() {
                XCTAssertEqual(try client.request("eqimport p\(index) " + Self.quoted(preset.lines)), ["OK"])
                XCTAssertEqual(try client.request("eqset capture p\(index)"), ["OK"])
                let heard = try play("noise.flac", client, capture, into: music.file("heard-\(index).raw"))
                let reference = music.file("ffmpeg-\(index).raw")
                try runTool("ffmpeg", [
                    "-v", "error", "-y", "-i", music.file("noise.flac"), "-af", "aformat=sample_fmts=dblp," + preset.ffmpeg,
                    "-c:a", "pcm_s32le", "-f", "s32le", reference,
                ])
                let result = try SoundQualityTests.measure(["diff", heard, reference, "32"])
                let difference = try XCTUnwrap(result["max_difference"] as? Double)
                print("equalizer \(rate) Hz, preset \(index): largest difference from ffmpeg \(difference) of full scale")
                XCTAssertLessThan(difference, 1e-6, "\(rate) Hz, \(preset.lines)")
                XCTAssertEqual(result["frames_a"] as? Int, result["frames_b"] as? Int, "every frame once")
            }
        }
    }

    /// An AutoEq file imported as it is published (with a 22,050 Hz band, clamped at 44.1 kHz)
    /// gives the response its text describes, within 0.1 dB from 30 Hz to 16 kHz.
    func testAnAutoEqPresetGivesTheResponseItDescribes() throws {
        let music = TemporaryDirectory("nimbus-eq")
        try runTool("sox", ["-n", "-r", "44100", "-b", "24", "-c", "2", music.file("noise.flac"), "synth", "6", "whitenoise", "vol", "0.2"])
        let autoEq = [
            "Preamp: -6.2 dB",
            "Filter 1: ON LSC Fc 105 Hz Gain 5.5 dB Q 0.71",
            "Filter 2: ON PK Fc 105 Hz Gain -3.1 dB Q 0.70",
            "Filter 3: ON PK Fc 2190 Hz Gain 4.6 dB Q 1.81",
            "Filter 4: ON PK Fc 3400 Hz Gain -2.4 dB Q 3.01",
            "Filter 5: ON PK Fc 5613 Hz Gain 3.2 dB Q 4.00",
            "Filter 6: ON HSC Fc 10000 Hz Gain -2.0 dB Q 0.71",
            "Filter 7: ON PK Fc 22050 Hz Gain 0.5 dB Q 2.0",
        ]
        let (_, capture, client) = try start(music, format: "44100:32:2")
        XCTAssertEqual(try client.request("eqimport headphones " + Self.quoted(autoEq)), ["OK"])
        XCTAssertEqual(try client.request("eqset capture headphones"), ["OK"])
        let heard = try play("noise.flac", client, capture, into: music.file("heard.raw"))
        let input = music.file("input.raw")
        try runTool("sox", [music.file("noise.flac"), "-b", "32", "-e", "signed", "-t", "raw", input])
        let presetFile = music.file("preset.txt")
        try autoEq.joined(separator: "\n").write(toFile: presetFile, atomically: true, encoding: .utf8)
        let measured = try XCTUnwrap(try SoundQualityTests.measure(["response", input, heard, "44100", "32"])["db"] as? [Double])
        let expected = try SoundQualityTests.measure(["expected", presetFile, "44100"])
        let described = try XCTUnwrap(expected["db"] as? [Double])
        let frequencies = try XCTUnwrap(expected["frequencies"] as? [Double])
        var worst = 0.0
        for (index, frequency) in frequencies.enumerated() where frequency <= 16000 {
            worst = max(worst, abs(measured[index] - described[index]))
            XCTAssertEqual(measured[index], described[index], accuracy: 0.1, "at \(Int(frequency)) Hz")
        }
        print("AutoEq preset: measured response within \(worst) dB of the one described")
    }

    /// Crossfeed at each of libbs2b's levels against libbs2b itself (ffmpeg's `bs2b` filter on
    /// double samples), and balance halving one side.
    func testCrossfeedMatchesLibbs2bAndBalanceAttenuates() throws {
        let music = TemporaryDirectory("nimbus-eq")
        try runTool("sox", ["-n", "-r", "44100", "-b", "24", "-c", "2", music.file("noise.flac"), "synth", "1.5", "whitenoise", "vol", "0.25"])
        let (_, capture, client) = try start(music, format: "44100:32:2")
        for level in ["default", "cmoy", "jmeier"] {
            XCTAssertEqual(try client.request("eqcrossfeed capture \(level)"), ["OK"])
            let heard = try play("noise.flac", client, capture, into: music.file("heard-\(level).raw"))
            let reference = music.file("bs2b-\(level).raw")
            try runTool("ffmpeg", [
                "-v", "error", "-y", "-i", music.file("noise.flac"), "-af", "aformat=sample_fmts=dbl,bs2b=profile=\(level)",
                "-c:a", "pcm_s32le", "-f", "s32le", reference,
            ])
            let difference = try XCTUnwrap(try SoundQualityTests.measure(["diff", heard, reference, "32"])["max_difference"] as? Double)
            print("crossfeed \(level): largest difference from libbs2b \(difference) of full scale")
            XCTAssertLessThan(difference, 1e-6, level)
        }
        XCTAssertEqual(try client.request("eqcrossfeed capture off"), ["OK"])
        XCTAssertEqual(try client.request("eqbalance capture 50"), ["OK"])
        let heard = try play("noise.flac", client, capture, into: music.file("balance.raw"))
        let reference = music.file("balance-reference.raw")
        try runTool("sox", [music.file("noise.flac"), "-b", "32", "-e", "signed", "-t", "raw", reference, "remix", "1v0.5", "2"])
        let difference = try XCTUnwrap(try SoundQualityTests.measure(["diff", heard, reference, "32"])["max_difference"] as? Double)
        XCTAssertLessThan(difference, 1e-6, "balance 50 to the right: the left at half, the right as it was")
    }
}
