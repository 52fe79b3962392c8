import Foundation
import NimbusHarness
import XCTest

/// What reaches the speakers, measured: 24-bit sweeps and tones played by nimbusd into ALSA's
/// `file` plugin at 32 bits and analysed with numpy/scipy (Scripts/sound_measure.py) beside
/// the same input converted by sox, whose `rate -h` / `rate -v` is the libsoxr quality Nimbus
/// claims. Dither and bit-perfect cases at 16 bits.
final class SoundQualityTests: XCTestCase {
    private var daemons: [ServerProcess] = []

    override func tearDown() {
        daemons.removeAll()
        super.tearDown()
    }

    static func measure(_ arguments: [String]) throws -> [String: Any] {
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Scripts/sound_measure.py").path
        let output = try runTool("/usr/bin/python3", [script] + arguments)
        return try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [String: Any], output)
    }

    /// Plays `songs` once through a daemon whose only output takes `format`; returns the
    /// captured raw PCM's path. `commands` run before `play` (an equalizer, say).
    func capture(
        _ songs: [String], music: TemporaryDirectory, format: String, config: String = "", commands: [String] = []
    ) throws -> String {
        let (daemon, capture, client) = try startCapturing(music, format: format, config: config, name: "capture-\(daemons.count)")
        daemons.append(daemon)
        for command in commands + songs.map({ "add \($0)" }) + ["play"] { XCTAssertEqual(try client.request(command), ["OK"], command) }
        XCTAssertTrue(client.waitForStatus("state: stop", timeout: 60), "playback did not stop")
        return capture.outputPath
    }

    private func sweep(_ music: TemporaryDirectory, rate: Int, seconds: Int = 4) throws -> String {
        let name = "sweep\(rate).flac"
        if !FileManager.default.fileExists(atPath: music.file(name)) {
            let raw = music.file("sweep\(rate).raw")
            _ = try Self.measure(["make-sweep", raw, "\(rate)", "20", "\(rate / 2)", "\(seconds)"])
            try runTool("sox", ["-D", "-t", "raw", "-r", "\(rate)", "-e", "signed", "-b", "32", "-c", "2", raw, "-b", "24", music.file(name)])
            try FileManager.default.removeItem(atPath: raw)
        }
        return name
    }

    /// The worst spur, image or alias within 3 dB of libsoxr's own (run by ffmpeg's
    /// `aresample=resampler=soxr` at the same precision, double samples) on the same sweep,
    /// and the level flat to ±0.05 dB below 20 kHz, for 44.1→48, 48→44.1 and 96→44.1 at the
    /// default "high" and 44.1→48 at "very high". sox's `rate` (the same author's older code,
    /// not libsoxr itself at "high") is measured and printed beside them.
    func testResamplingMatchesLibsoxrThroughTheDaemon() throws {
        let music = TemporaryDirectory("nimbus-sound")
        let cases: [(from: Int, to: Int, quality: String, precision: Int, sox: String, ceiling: Double)] = [
            (44100, 48000, "high", 20, "-h", -125), (48000, 44100, "high", 20, "-h", -125), (96000, 44100, "high", 20, "-h", -125),
            (44100, 48000, "very high", 28, "-v", -140),
        ]
        for test in cases {
            let song = try sweep(music, rate: test.from)
            let config = "resampler {\n    plugin \"soxr\"\n    quality \"\(test.quality)\"\n}"
            let heard = try capture([song], music: music, format: "\(test.to):32:2", config: config)
            let library = music.file("soxr-\(test.from)-\(test.to)-\(test.precision).raw")
            try runTool("ffmpeg", [
                "-v", "error", "-y", "-i", music.file(song), "-af",
                "aformat=sample_fmts=dbl,aresample=\(test.to):resampler=soxr:precision=\(test.precision)", "-c:a", "pcm_s32le", "-f", "s32le",
                library,
            ])
            let sox = music.file("sox-\(test.from)-\(test.to)\(test.sox).raw")
            try runTool("sox", [music.file(song), "-b", "32", "-e", "signed", "-t", "raw", sox, "rate", test.sox, "\(test.to)"])
            let arguments = ["\(test.to)", "32", "\(test.from)", "20", "\(test.from / 2)", "4"]
            let ours = try Self.measure(["sweep", heard] + arguments)
            let reference = try Self.measure(["sweep", library] + arguments)
            let soxResult = try Self.measure(["sweep", sox] + arguments)
            let label = "\(test.from) → \(test.to) \(test.quality)"
            let worst = try XCTUnwrap(ours["worst_db"] as? Double), libsoxr = try XCTUnwrap(reference["worst_db"] as? Double)
            print(
                "resampling \(label): worst spur \(worst) dB (tone at \(ours["worst_at_hz"]!) Hz); libsoxr \(libsoxr) dB; "
                    + "sox rate \(test.sox) \(soxResult["worst_db"]!) dB")
            XCTAssertLessThan(worst, libsoxr + 3, "\(label): worst spur, image or alias")
            XCTAssertLessThan(worst, test.ceiling, "\(label): far below anything audible")
            let low = try XCTUnwrap(ours["level_min_db"] as? Double), high = try XCTUnwrap(ours["level_max_db"] as? Double)
            // The sweep is 0.5 of full scale: −6.02 dB.
            XCTAssertEqual(low, -6.0206, accuracy: 0.05, "\(label): level below 20 kHz")
            XCTAssertEqual(high, -6.0206, accuracy: 0.05, "\(label): level below 20 kHz")
        }
    }

    /// A −90 dBFS 24-bit tone cut to 16 bits is noise, not harmonics: TPDF dither. Without
    /// it the tone (about one LSB) turns into a square wave with odd harmonics at −100 dB.
    func testCuttingToSixteenBitsIsDithered() throws {
        let music = TemporaryDirectory("nimbus-sound")
        try runTool("sox", ["-n", "-r", "44100", "-b", "24", "-c", "2", music.file("quiet.flac"), "synth", "3", "sine", "1000", "gain", "-90"])
        let heard = try capture(["quiet.flac"], music: music, format: "44100:16:2")
        let result = try Self.measure(["tone", heard, "44100", "16", "1000"])
        let fundamental = try XCTUnwrap(result["fundamental_db"] as? Double)
        let floor = try XCTUnwrap(result["noise_floor_db"] as? Double)
        let harmonics = try XCTUnwrap(result["harmonics_db"] as? [String: Double])
        print("dither: fundamental \(fundamental) dB, noise floor \(floor) dB, harmonics \(harmonics)")
        XCTAssertEqual(fundamental, -90, accuracy: 1.5, "the tone survives")
        for (order, level) in harmonics {
            XCTAssertLessThan(level, floor + 12, "harmonic \(order) stands out of the noise: the cut is not dithered")
        }
        // Plain rounding of this tone puts the 3rd harmonic some 10 dB above such a floor.
        let undithered = music.file("rounded.raw")
        try runTool("sox", ["-D", music.file("quiet.flac"), "-b", "16", "-e", "signed", "-t", "raw", undithered])
        let plain = try Self.measure(["tone", undithered, "44100", "16", "1000"])
        let plainThird = try XCTUnwrap((plain["harmonics_db"] as? [String: Double])?["3"])
        XCTAssertGreaterThan(plainThird, harmonics["3"] ?? 0, "the measurement tells rounding from dither")
    }

    /// Nothing changed, nothing dithered: a 16-bit song at full volume plays sample for
    /// sample, also with an equalizer preset set but bypassed (neutral settings skip the chain).
    func testUnchangedSixteenBitsStayBitPerfect() throws {
        let music = TemporaryDirectory("nimbus-sound")
        try runTool("sox", ["-n", "-r", "44100", "-b", "16", "-c", "2", music.file("noise.flac"), "synth", "2", "whitenoise", "vol", "0.7"])
        let source = music.file("noise.raw")
        try runTool("sox", [music.file("noise.flac"), "-t", "raw", source])
        let plain = try capture(["noise.flac"], music: music, format: "44100:16:2")
        XCTAssertEqual(FileManager.default.contents(atPath: plain), FileManager.default.contents(atPath: source), "bit-perfect")
        let bypassed = try capture(
            ["noise.flac"], music: music, format: "44100:16:2",
            commands: ["eqimport loud \"Preamp: -3 dB\" \"Filter 1: ON PK Fc 1000 Hz Gain 6 dB Q 1\"", "eqset capture loud", "eqbypass capture 1"])
        XCTAssertEqual(FileManager.default.contents(atPath: bypassed), FileManager.default.contents(atPath: source), "bypassed: bit-perfect")
    }
}
