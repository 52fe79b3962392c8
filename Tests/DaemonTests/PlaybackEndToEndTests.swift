import Foundation
import NimbusHarness
import XCTest

/// Real audio end to end: files generated here, decoded by nimbusd, played through libasound
/// into ALSA's `file` plugin and checked sample by sample.
final class PlaybackEndToEndTests: XCTestCase {
    /// Daemons live until the test ends, whether or not the test keeps a reference.
    private var daemons: [ServerProcess] = []

    override func tearDown() {
        daemons.removeAll()
        super.tearDown()
    }

    /// A daemon whose only output is the ALSA capture (unpaced: songs play as fast as they
    /// decode), or with `paced` a null output first that keeps real time.
    private func start(
        music: TemporaryDirectory, songs: Int, paced: Bool = false, extra: String = ""
    ) throws -> (ServerProcess, ALSACapture, LineClient) {
        let capture = ALSACapture(in: music)
        let daemon = try ServerProcess(
            .nimbus, config: ALSACapture.outputBlock() + "\n" + extra, musicDirectory: music.path, nullOutput: paced,
            environment: capture.environment)
        try daemon.waitForDatabase(songs: songs)
        daemons.append(daemon)
        return (daemon, capture, try daemon.connect())
    }

    func testASinePlaysWithTheRightLengthAndFrequency() throws {
        let music = TemporaryDirectory("nimbus-e2e")
        try AudioFixtures.writeSineWAV(to: music.file("sine.wav"), frames: 88_200, frequency: 1000)
        _ = try runTool("flac", ["-s", "-f", "-o", music.file("sine.flac"), music.file("sine.wav")])
        try FileManager.default.removeItem(atPath: music.file("sine.wav"))
        let (_, capture, client) = try start(music: music, songs: 1)
        XCTAssertEqual(try client.request("add sine.flac"), ["OK"])
        XCTAssertEqual(try client.request("play"), ["OK"])
        XCTAssertTrue(client.waitForStatus("state: stop"), "playback did not stop")
        let left = AudioFixtures.leftChannel(capture.bytes)
        XCTAssertEqual(left.count, 88_200, "exactly two seconds")
        let crossings = zip(left, left.dropFirst()).filter { ($0 < 0) != ($1 < 0) }.count
        XCTAssertEqual(Double(crossings), 4000, accuracy: 4, "1 kHz for two seconds")
        for (index, sample) in left.enumerated() {
            let expected = AudioFixtures.sineSample(frame: index, frequency: 1000, amplitude: 0.5)
            if abs(Double(sample) - expected) > 1 {
                XCTFail("frame \(index): \(sample) instead of \(expected)")
                break
            }
        }
    }

    /// ReplayGain from the tags (a FLAC's Vorbis comments, an MP3's TXXX frames), applied as
    /// `replay_gain_mode` says: -6.02 dB halves every sample, `off` leaves them alone, and the
    /// peak limit keeps a +12 dB album gain from clipping.
    func testReplayGainScalesWhatIsHeard() throws {
        let music = TemporaryDirectory("nimbus-e2e")
        try AudioFixtures.writeSineWAV(to: music.file("sine.wav"), frames: 22_050, frequency: 1000, amplitude: 0.5)
        _ = try runTool("flac", [
            "-s", "-f", "-T", "REPLAYGAIN_TRACK_GAIN=-6.0206 dB", "-T", "REPLAYGAIN_TRACK_PEAK=0.5",
            "-T", "REPLAYGAIN_ALBUM_GAIN=+12.00 dB", "-T", "REPLAYGAIN_ALBUM_PEAK=0.5", "-o", music.file("sine.flac"),
            music.file("sine.wav"),
        ])
        try FileManager.default.removeItem(atPath: music.file("sine.wav"))
        let (_, capture, client) = try start(music: music, songs: 1)
        XCTAssertEqual(try client.request("add sine.flac"), ["OK"])
        func played(mode: String) -> [Int16] {
            XCTAssertEqual(try? client.request("replay_gain_mode \(mode)"), ["OK"])
            XCTAssertEqual(try? client.request("play"), ["OK"])
            XCTAssertTrue(client.waitForStatus("state: stop"), "playback did not stop")
            // The capture file starts again whenever the device is reopened: the last play is its end.
            return Array(AudioFixtures.leftChannel(capture.bytes).suffix(22_050))
        }
        func peak(_ samples: [Int16]) -> Int { samples.map { abs(Int($0)) }.max() ?? 0 }
        let full = peak(played(mode: "off"))
        XCTAssertEqual(full, 16_383, accuracy: 2)
        XCTAssertEqual(peak(played(mode: "track")), 8_192, accuracy: 2, "-6.02 dB is half")
        // +12 dB would take a 0.5 peak to 2.0: the limit stops at full scale.
        XCTAssertEqual(peak(played(mode: "album")), 32_767, accuracy: 3, "limited by the peak, not clipped")
        XCTAssertEqual(peak(played(mode: "auto")), 32_767, accuracy: 3, "auto plays album gain in order")
    }

    func testSeekLandsOnTheExactFrameInFLACAndWAV() throws {
        let music = TemporaryDirectory("nimbus-e2e")
        try AudioFixtures.writeRampWAV(to: music.file("ramp.wav"), frames: 132_300)
        _ = try runTool("flac", ["-s", "-f", "-o", music.file("ramp.flac"), music.file("ramp.wav")])
        let (_, capture, client) = try start(music: music, songs: 2)
        for (index, file) in ["ramp.wav", "ramp.flac"].enumerated() {
            XCTAssertEqual(try client.request("add \(file)"), ["OK"])
            // From stopped, seek starts the song at the target: the first frame heard must be it.
            XCTAssertEqual(try client.request("seek \(index) 1.25"), ["OK"])
            XCTAssertTrue(client.waitForStatus("state: stop"), "playback did not stop")
            let played = AudioFixtures.rampIndices(capture.bytes)
            XCTAssertEqual(played.first, 55_125, file)
            XCTAssertEqual(played.count, 132_300 - 55_125, file)
            XCTAssertEqual(played.last, 132_299, file)
        }
    }

    func testSeekWhilePlayingJumpsToTheExactFrame() throws {
        let music = TemporaryDirectory("nimbus-e2e")
        // Longer than the pipe holds, so the seek happens before everything was decoded.
        try AudioFixtures.writeRampWAV(to: music.file("ramp.wav"), frames: 441_000)
        _ = try runTool("flac", ["-s", "-f", "-o", music.file("ramp.flac"), music.file("ramp.wav")])
        let (_, capture, client) = try start(music: music, songs: 2, paced: true)
        for file in ["ramp.flac", "ramp.wav"] {
            XCTAssertEqual(try client.request("clear"), ["OK"])
            XCTAssertEqual(try client.request("add \(file)"), ["OK"])
            XCTAssertEqual(try client.request("play"), ["OK"])
            Thread.sleep(forTimeInterval: 0.4)
            XCTAssertEqual(try client.request("seekcur 8"), ["OK"])
            XCTAssertTrue(client.waitForStatus("state: stop"), "playback did not stop")
            let played = AudioFixtures.rampIndices(capture.bytes)
            guard let jump = played.indices.dropLast().first(where: { played[$0 + 1] != played[$0] + 1 }) else {
                return XCTFail("\(file): no seek in the output")
            }
            XCTAssertEqual(played[0], 0, file)
            XCTAssertEqual(played[jump + 1], 352_800, "\(file): lands on the frame at 8.000 s")
            XCTAssertTrue(played[(jump + 1)...].elementsEqual(352_800..<441_000), "\(file): continuous after the seek")
        }
    }

    /// Two files cut from one continuous sine at an arbitrary frame, encoded separately: played
    /// back to back the output must be that sine with every frame present exactly once.
    func testGaplessAcrossTrackBoundariesForMP3OggAndFLAC() throws {
        let music = TemporaryDirectory("nimbus-e2e")
        let first = 66_150 + 37
        let second = 57_331
        let frequency = 2000.0
        try AudioFixtures.writeSineWAV(to: music.file("a.wav"), frames: first, frequency: frequency)
        try AudioFixtures.writeSineWAV(to: music.file("b.wav"), frames: second, firstFrame: first, frequency: frequency)
        for part in ["a", "b"] {
            _ = try runTool("lame", ["--quiet", "-b", "320", "-q", "0", music.file("\(part).wav"), music.file("\(part).mp3")])
            _ = try runTool("oggenc", ["-Q", "-q", "8", "-o", music.file("\(part).ogg"), music.file("\(part).wav")])
            _ = try runTool("flac", ["-s", "-f", "-o", music.file("\(part).flac"), music.file("\(part).wav")])
            try FileManager.default.removeItem(atPath: music.file("\(part).wav"))
        }
        let (_, capture, client) = try start(music: music, songs: 6)
        for (format, tolerance) in [("flac", 1.0), ("ogg", 1200.0), ("mp3", 1200.0)] {
            XCTAssertEqual(try client.request("clear"), ["OK"])
            XCTAssertEqual(try client.request("add a.\(format)"), ["OK"])
            XCTAssertEqual(try client.request("add b.\(format)"), ["OK"])
            XCTAssertEqual(try client.request("play"), ["OK"])
            XCTAssertTrue(client.waitForStatus("state: stop"), "playback did not stop")
            let left = AudioFixtures.leftChannel(capture.bytes)
            XCTAssertEqual(left.count, first + second, "\(format): no frame inserted or dropped")
            // A one-frame slip at 2 kHz shifts the phase by 16 degrees: an error of ~0.28 of
            // the amplitude (~4600) on every later frame, far above the codec's own error. The
            // few frames where each file's encoding starts and ends are left out: a lossy
            // encoder smears the cut.
            var worst = 0.0
            var worstFrame = 0
            let edges = [0..<2048, (first - 2048)..<(first + 2048), (left.count - 2048)..<left.count]
            for (index, sample) in left.enumerated() where !edges.contains(where: { $0.contains(index) }) {
                let error = abs(Double(sample) - AudioFixtures.sineSample(frame: index, frequency: frequency, amplitude: 0.5))
                if error > worst { (worst, worstFrame) = (error, index) }
            }
            XCTAssertLessThan(worst, tolerance, "\(format): worst error at frame \(worstFrame) (boundary at \(first))")
        }
    }

    /// ALAC in .m4a (through FFmpeg) is lossless: two tracks cut from one sine play back as the
    /// sine, frame for frame. Opus (libopusfile) at 48 kHz joins without a frame inserted or
    /// dropped, within the codec's error.
    func testGaplessALACIsExactAndOpusJoinsThroughALSA() throws {
        let music = TemporaryDirectory("nimbus-e2e")
        let first = 40_000 + 37
        let second = 30_011
        try AudioFixtures.writeSineWAV(to: music.file("a.wav"), frames: first, frequency: 2000)
        try AudioFixtures.writeSineWAV(to: music.file("b.wav"), frames: second, firstFrame: first, frequency: 2000)
        for part in ["a", "b"] {
            try runTool("ffmpeg", ["-hide_banner", "-loglevel", "error", "-y", "-i", music.file("\(part).wav"), "-c:a", "alac", music.file("\(part).m4a")])
            try FileManager.default.removeItem(atPath: music.file("\(part).wav"))
        }
        let rate48 = 48_000.0
        func sine48(_ frame: Int) -> Double { (0.5 * 32767 * sin(2 * Double.pi * 1000 * Double(frame) / rate48)).rounded() }
        try runTool("sox", ["-n", "-r", "48000", "-c", "2", "-b", "16", music.file("c.wav"), "synth", "1.6", "sine", "1000", "vol", "0.5"])
        try runTool("sox", [music.file("c.wav"), music.file("c1.wav"), "trim", "0s", "36011s"])
        try runTool("sox", [music.file("c.wav"), music.file("c2.wav"), "trim", "36011s", "40000s"])
        for part in ["c1", "c2"] { try runTool("opusenc", ["--quiet", "--bitrate", "256", music.file("\(part).wav"), music.file("\(part).opus")]) }
        for name in ["c.wav", "c1.wav", "c2.wav"] { try FileManager.default.removeItem(atPath: music.file(name)) }

        let (_, capture, client) = try start(music: music, songs: 4)
        for command in ["add a.m4a", "add b.m4a", "play"] { XCTAssertEqual(try client.request(command), ["OK"], command) }
        XCTAssertTrue(client.waitForStatus("state: stop"), "playback did not stop")
        let left = AudioFixtures.leftChannel(capture.bytes)
        XCTAssertEqual(left.count, first + second, "ALAC: every frame once")
        let wrong = left.enumerated().first { abs(Double($0.element) - AudioFixtures.sineSample(frame: $0.offset, frequency: 2000, amplitude: 0.5)) > 1 }
        XCTAssertNil(wrong, "ALAC: frame \(wrong?.offset ?? -1) is not the sine")

        let elsewhere = TemporaryDirectory("nimbus-e2e-48k")
        let opus = ALSACapture(in: elsewhere)
        let daemon = try ServerProcess(
            .nimbus, config: ALSACapture.outputBlock(format: "48000:16:2"), musicDirectory: music.path, nullOutput: false,
            environment: opus.environment)
        daemons.append(daemon)
        try daemon.waitForDatabase(songs: 4)
        let second48 = try daemon.connect()
        for command in ["add c1.opus", "add c2.opus", "play"] { XCTAssertEqual(try second48.request(command), ["OK"], command) }
        XCTAssertTrue(second48.waitForStatus("state: stop"), "playback did not stop")
        let heard = AudioFixtures.leftChannel(opus.bytes)
        XCTAssertEqual(heard.count, 76_011, "Opus: pre-skip and padding trimmed, nothing inserted at the join")
        let worst = heard.enumerated().filter { $0.offset > 2000 }.map { abs(Double($0.element) - sine48($0.offset)) }.max() ?? .infinity
        XCTAssertLessThan(worst, 0.08 * 32767, "Opus: the sine goes on across the join")
    }

    func testBrokenAndMissingFilesAreSkippedWithAnError() throws {
        let music = TemporaryDirectory("nimbus-e2e")
        try AudioFixtures.writeRampWAV(to: music.file("good.wav"), frames: 4410)
        try AudioFixtures.writeRampWAV(to: music.file("long.wav"), frames: 441_000)
        _ = try runTool("flac", ["-s", "-f", "-o", music.file("long.flac"), music.file("long.wav")])
        let flac = try Data(contentsOf: URL(fileURLWithPath: music.file("long.flac")))
        try flac.prefix(flac.count / 2).write(to: URL(fileURLWithPath: music.file("truncated.flac")))
        try AudioFixtures.writeRampWAV(to: music.file("gone.wav"), frames: 4410)
        let (daemon, capture, client) = try start(music: music, songs: 5)
        for file in ["gone.wav", "truncated.flac", "good.wav"] {
            XCTAssertEqual(try client.request("add \(file)"), ["OK"])
        }
        try FileManager.default.removeItem(atPath: music.file("gone.wav"))
        XCTAssertEqual(try client.request("play"), ["OK"])
        XCTAssertTrue(client.waitForStatus("state: stop"), "playback did not stop")
        let status = try client.request("status")
        XCTAssertTrue(status.contains { $0.hasPrefix("error: ") }, "\(status)")
        let played = AudioFixtures.rampIndices(capture.bytes)
        // What decodes of the truncated file, then the good file in full.
        XCTAssertGreaterThan(played.count, 4410 + 44_100)
        XCTAssertTrue(played.prefix(44_100).elementsEqual(0..<44_100), "the truncated file plays from its start")
        XCTAssertTrue(played.suffix(4410).elementsEqual(0..<4410), "the good file plays in full at the end")
        XCTAssertEqual(try client.request("clearerror"), ["OK"])
        XCTAssertFalse(try client.request("status").contains { $0.hasPrefix("error: ") })
        XCTAssertTrue(daemon.process.isRunning)
    }

    /// A queued song that cannot be opened is skipped and the one after it plays.
    func testPlaybackContinuesAfterASongThatCannotBeOpened() throws {
        let music = TemporaryDirectory("nimbus-e2e")
        try AudioFixtures.writeRampWAV(to: music.file("a.wav"), frames: 4410)
        try AudioFixtures.writeRampWAV(to: music.file("gone.wav"), frames: 4410)
        try AudioFixtures.writeRampWAV(to: music.file("c.wav"), frames: 8820)
        let (_, capture, client) = try start(music: music, songs: 3)
        for file in ["a.wav", "gone.wav", "c.wav"] {
            XCTAssertEqual(try client.request("add \(file)"), ["OK"])
        }
        try FileManager.default.removeItem(atPath: music.file("gone.wav"))
        XCTAssertEqual(try client.request("play"), ["OK"])
        XCTAssertTrue(client.waitForStatus("state: stop"), "playback did not stop")
        let error = try client.request("status").first { $0.hasPrefix("error: ") } ?? ""
        XCTAssertTrue(error.contains("gone.wav"), error)
        let played = AudioFixtures.rampIndices(capture.bytes)
        XCTAssertEqual(played.count, 4410 + 8820, "a.wav and c.wav, back to back")
        XCTAssertTrue(played.suffix(8820).elementsEqual(0..<8820), "c.wav played in full")
    }

    func testAMissingSoundCardIsAnErrorNotACrash() throws {
        let music = TemporaryDirectory("nimbus-e2e")
        try AudioFixtures.writeRampWAV(to: music.file("a.wav"), frames: 44_100)
        let config = """
            audio_output {
                type "alsa"
                name "Card"
                device "hw:7,7"
            }
            """
        let daemon = try ServerProcess(.nimbus, config: config, musicDirectory: music.path, nullOutput: false)
        try daemon.waitForDatabase(songs: 1)
        let client = try daemon.connect()
        XCTAssertEqual(try client.request("add a.wav"), ["OK"])
        XCTAssertEqual(try client.request("play"), ["OK"])
        XCTAssertTrue(waitUntil { (try? client.request("status"))?.contains { $0.hasPrefix("error: ") } == true })
        let error = try client.request("status").first { $0.hasPrefix("error: ") } ?? ""
        XCTAssertTrue(error.contains("\"Card\""), error)
        XCTAssertTrue(try client.request("status").contains("state: pause"), "paused, as MPD pauses when no output opens")
        XCTAssertTrue(daemon.process.isRunning)
        XCTAssertEqual(try client.request("ping"), ["OK"])
    }
}
