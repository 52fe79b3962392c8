import Foundation
import Glibc
import NimbusHarness
import XCTest

/// MPD's `pulse` output against a real PulseAudio server started privately by the test: the
/// stream appears as a sink input named after the output, every sample arrives (the sink's
/// monitor recorded with `parec` and compared with the song), `setvol` moves the sink input's
/// own volume, the stream is opened at the sink's rate, and a restarted server is found again.
final class PulseOutputTests: XCTestCase {
    private static let frames = 44100 * 2

    private func frameValues(_ bytes: [UInt8]) -> [Int] {
        stride(from: 0, to: bytes.count - 3, by: 4).map { (offset: Int) -> Int in
            let low = Int(bytes[offset]) | Int(bytes[offset + 1]) << 8
            let high = Int(bytes[offset + 2]) | Int(bytes[offset + 3]) << 8
            return low | high << 16
        }
    }

    private func config(_ pulse: PulseAudioServer) -> String {
        """
        audio_output {
            type "pulse"
            name "Nimbus Pulse"
            server "\(pulse.address)"
            sink "nimbus_cd"
        }
        audio_output {
            type "pulse"
            name "Nimbus 48k"
            server "\(pulse.address)"
            sink "nimbus_48k"
        }
        """
    }

    func testEverySampleReachesTheSinkAndTheVolumeIsTheStreams() throws {
        try XCTSkipUnless(PulseAudioServer.available, "pulseaudio and pulseaudio-utils are not installed (scripts/install-deps)")
        let sinks = [(name: "nimbus_cd", rate: 44100), (name: "nimbus_48k", rate: 48000)]
        let pulse = try PulseAudioServer(sinks: sinks)
        let music = TemporaryDirectory("nimbus-pulse-music")
        try AudioFixtures.writeRampWAV(to: music.file("ramp.wav"), frames: Self.frames)
        let daemon = try ServerProcess(.nimbus, config: config(pulse), musicDirectory: music.path, nullOutput: false)
        try daemon.waitForDatabase(songs: 1)
        let client = try daemon.connect()
        let recording = music.file("monitor.raw")
        let recorder = try pulse.record(sink: "nimbus_cd", rate: 44100, to: recording)
        defer { recorder.terminate() }
        XCTAssertTrue(waitUntil { (try? pulse.pactl(["list", "short", "source-outputs"]))?.isEmpty == false }, "parec is recording")

        for command in ["add ramp.wav", "play"] { XCTAssertEqual(try client.request(command), ["OK"], command) }
        var inputs = ""
        XCTAssertTrue(waitUntil { inputs = (try? pulse.pactl(["list", "sink-inputs"])) ?? ""; return inputs.components(separatedBy: "Sink Input #").count == 3 }, inputs)
        XCTAssertTrue(inputs.contains("media.name = \"Nimbus Pulse\"") && inputs.contains("application.name = \"Nimbus\""), inputs)
        XCTAssertTrue(inputs.contains("media.role = \"music\""), inputs)
        XCTAssertTrue(inputs.contains("Sample Specification: s16le 2ch 44100Hz"), inputs)
        XCTAssertTrue(inputs.contains("Sample Specification: s16le 2ch 48000Hz"), "the 48 kHz sink gets 48 kHz from Nimbus, not a second resampling: \(inputs)")

        XCTAssertTrue(client.waitForStatus("state: stop", timeout: 60), "playback did not end")
        // A null sink's monitor drops and repeats a little while a new stream is mixed in
        // (the sink rewinds, its monitor does not); from then on every sample is the song's.
        let samples = frameValues(Array(try Data(contentsOf: URL(fileURLWithPath: recording))))
        let start = try XCTUnwrap(samples.firstIndex(of: 20000), "the ramp reached the sink")
        let steady = Array(samples[start...].prefix(20000))
        XCTAssertTrue(steady == Array(20000..<40000), "0.45 s in the middle arrive unchanged: \(steady.prefix(10))…")

        // The mixer is the sink input's volume on the server.
        for command in ["play"] { XCTAssertEqual(try client.request(command), ["OK"], command) }
        XCTAssertTrue(waitUntil { (try? pulse.pactl(["list", "short", "sink-inputs"]))?.split(separator: "\n").count == 2 })
        XCTAssertEqual(try client.request("setvol 50"), ["OK"])
        XCTAssertTrue(waitUntil { (try? pulse.pactl(["list", "sink-inputs"]))?.contains("32768 /  50%") == true }, (try? pulse.pactl(["list", "sink-inputs"])) ?? "")
        XCTAssertTrue(try client.request("status").contains("volume: 50"))
    }

    func testARestartedServerIsFoundAgain() throws {
        try XCTSkipUnless(PulseAudioServer.available, "pulseaudio and pulseaudio-utils are not installed (scripts/install-deps)")
        let sinks = [(name: "nimbus_cd", rate: 44100), (name: "nimbus_48k", rate: 48000)]
        let pulse = try PulseAudioServer(sinks: sinks)
        let music = TemporaryDirectory("nimbus-pulse-restart")
        try AudioFixtures.writeRampWAV(to: music.file("ramp.wav"), frames: 44100 * 20)
        let daemon = try ServerProcess(.nimbus, config: config(pulse), musicDirectory: music.path, nullOutput: false)
        try daemon.waitForDatabase(songs: 1)
        let client = try daemon.connect()
        for command in ["add ramp.wav", "play"] { XCTAssertEqual(try client.request(command), ["OK"], command) }
        XCTAssertTrue(waitUntil { (try? pulse.pactl(["list", "short", "sink-inputs"]))?.split(separator: "\n").count == 2 })
        try pulse.restart(sinks: sinks)
        XCTAssertTrue(
            waitUntil(timeout: 20) { (try? pulse.pactl(["list", "short", "sink-inputs"]))?.split(separator: "\n").count == 2 },
            "both streams are back on the restarted server: \(daemon.log)")
        XCTAssertTrue(try client.request("status").contains("state: play"))
    }

    /// Without a server to talk to, the output fails as MPD's does: `state: pause` with an
    /// `error:` line, not a silent `play`.
    func testNoServerIsAVisibleError() throws {
        let music = TemporaryDirectory("nimbus-pulse-none")
        try AudioFixtures.writeRampWAV(to: music.file("ramp.wav"), frames: 44100)
        let config = "audio_output {\n type \"pulse\"\n name \"p\"\n server \"unix:\(music.file("absent"))\"\n}\n"
        let daemon = try ServerProcess(.nimbus, config: config, musicDirectory: music.path, nullOutput: false)
        try daemon.waitForDatabase(songs: 1)
        let client = try daemon.connect()
        for command in ["add ramp.wav", "play"] { XCTAssertEqual(try client.request(command), ["OK"], command) }
        XCTAssertTrue(client.waitForStatus("state: pause", timeout: 20), daemon.log)
        let status = try client.request("status")
        XCTAssertTrue(status.contains { $0.hasPrefix("error: ") }, "\(status)")
    }
}
