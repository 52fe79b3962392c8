import Foundation
import NimbusHarness
import XCTest

/// MPD's `pipe` and `recorder` outputs: what plays reaches a command's standard input and a
/// file, every sample of it — checked by reading the raw bytes the command wrote and by
/// decoding the recorded FLAC with Debian's `flac`.
final class PipeRecorderOutputTests: XCTestCase {
    private static let frames = 44100 * 2

    private func ramp(_ bytes: [UInt8]) -> [Int] {
        stride(from: 0, to: bytes.count - 3, by: 4).map { (offset: Int) -> Int in
            let low = Int(bytes[offset]) | Int(bytes[offset + 1]) << 8
            let high = Int(bytes[offset + 2]) | Int(bytes[offset + 3]) << 8
            return low | high << 16
        }
    }

    func testThePipeAndTheRecorderGetEverySample() throws {
        let music = TemporaryDirectory("nimbus-pipe-recorder")
        try AudioFixtures.writeRampWAV(to: music.file("ramp.wav"), frames: Self.frames)
        let raw = music.file("piped.raw"), recorded = music.file("recorded.flac")
        let config = """
            audio_output {
                type "pipe"
                name "to a command"
                command "cat > '\(raw)'"
                format "44100:16:2"
            }
            audio_output {
                type "recorder"
                name "to a file"
                path "\(recorded)"
                encoder "flac"
            }
            """
        // MPD's `always_off`: listed, never played on (its command never starts).
        let marker = music.file("never")
        let withOff = config + "\naudio_output {\n type \"pipe\"\n name \"off\"\n always_off \"yes\"\n command \"touch '\(marker)'; cat > /dev/null\"\n}\n"
        let daemon = try ServerProcess(.nimbus, config: withOff, musicDirectory: music.path, nullOutput: false)
        try daemon.waitForDatabase(songs: 1)
        let client = try daemon.connect()
        let outputs = try client.request("outputs")
        XCTAssertTrue(outputs.contains("outputname: off"), "\(outputs)")
        XCTAssertTrue(outputs.contains("plugin: pipe") && outputs.contains("plugin: recorder"), "\(outputs)")
        for command in ["add ramp.wav", "play"] { XCTAssertEqual(try client.request(command), ["OK"], command) }
        XCTAssertTrue(client.waitForStatus("state: stop", timeout: 60), "playback did not end")
        XCTAssertTrue(
            waitUntil { (try? FileManager.default.attributesOfItem(atPath: raw)[.size] as? Int) == Self.frames * 4 },
            "the command got every frame")
        XCTAssertEqual(ramp(Array(try Data(contentsOf: URL(fileURLWithPath: raw)))), Array(0..<Self.frames))
        let decoded = music.file("decoded.raw")
        XCTAssertTrue(waitUntil {
            (try? runTool("flac", ["-s", "-d", "-f", "--force-raw-format", "--endian=little", "--sign=signed", "-o", decoded, recorded])) != nil
        }, "the recording is a whole FLAC file")
        XCTAssertEqual(ramp(Array(try Data(contentsOf: URL(fileURLWithPath: decoded)))), Array(0..<Self.frames), "every sample recorded")
        XCTAssertFalse(FileManager.default.fileExists(atPath: marker), "the always_off output never started")
    }

    func testAPipeWhoseCommandFailsIsAnOutputError() throws {
        let music = TemporaryDirectory("nimbus-pipe-fails")
        try AudioFixtures.writeRampWAV(to: music.file("ramp.wav"), frames: Self.frames)
        let daemon = try ServerProcess(
            .nimbus, config: "audio_output {\n type \"pipe\"\n name \"broken\"\n command \"exit 3\"\n}\n", musicDirectory: music.path,
            nullOutput: false)
        try daemon.waitForDatabase(songs: 1)
        let client = try daemon.connect()
        for command in ["add ramp.wav", "play"] { XCTAssertEqual(try client.request(command), ["OK"], command) }
        XCTAssertTrue(waitUntil(timeout: 20) { daemon.log.contains("the command exited (status 3)") }, daemon.log)
    }

    /// MPD's `audio_output_format`: an output without a `format` of its own gets that format
    /// (a second of 44.1 kHz stereo arrives as 22050 mono frames).
    func testTheGlobalOutputFormatApplies() throws {
        let music = TemporaryDirectory("nimbus-output-format")
        try AudioFixtures.writeRampWAV(to: music.file("ramp.wav"), frames: 44100)
        let raw = music.file("piped.raw")
        let config = "audio_output_format \"22050:16:1\"\naudio_output {\n type \"pipe\"\n name \"p\"\n command \"cat > '\(raw)'\"\n}\n"
        let daemon = try ServerProcess(.nimbus, config: config, musicDirectory: music.path, nullOutput: false)
        try daemon.waitForDatabase(songs: 1)
        let client = try daemon.connect()
        for command in ["add ramp.wav", "play"] { XCTAssertEqual(try client.request(command), ["OK"], command) }
        XCTAssertTrue(client.waitForStatus("state: stop", timeout: 60), "playback did not end")
        XCTAssertTrue(waitUntil {
            let size = (try? FileManager.default.attributesOfItem(atPath: raw)[.size] as? Int) ?? 0
            return abs(size - 22050 * 2) <= 64
        }, "22050 mono 16-bit frames, not \((try? FileManager.default.attributesOfItem(atPath: raw)[.size] as? Int) ?? 0) bytes")
        XCTAssertFalse(daemon.log.contains("audio_output_format"), "no longer ignored: \(daemon.log)")
    }

    /// A config whose every output is one Nimbus lacks never plays silently: `play` pauses
    /// with the reason as `error:`, as MPD does when no output opens, and `outputs` lists it.
    func testOnlyUnusableOutputsPauseWithAnError() throws {
        let music = TemporaryDirectory("nimbus-no-output")
        try AudioFixtures.writeRampWAV(to: music.file("ramp.wav"), frames: Self.frames)
        let daemon = try ServerProcess(
            .nimbus, config: "audio_output {\n type \"jack\"\n name \"desktop\"\n}\n", musicDirectory: music.path, nullOutput: false)
        try daemon.waitForDatabase(songs: 1)
        let client = try daemon.connect()
        XCTAssertTrue(try client.request("outputs").contains("outputname: desktop"))
        for command in ["add ramp.wav", "play"] { XCTAssertEqual(try client.request(command), ["OK"], command) }
        XCTAssertTrue(client.waitForStatus("state: pause", timeout: 20), "paused, not playing into nothing")
        let error = try client.request("status").first { $0.hasPrefix("error: ") } ?? ""
        XCTAssertTrue(error.contains("output plugin \"jack\" is not supported by Nimbus"), error)
        // `--check` says so and fails such a config, naming the block's line.
        let config = music.write("jack.conf", "music_directory \"\(music.path)\"\naudio_output {\n type \"jack\"\n name \"desktop\"\n}\n")
        let check = Process()
        check.executableURL = URL(fileURLWithPath: ServerProcess.buildDirectory + "/nimbusd")
        check.arguments = ["--check", config]
        let output = Pipe()
        check.standardOutput = output
        try check.run()
        let said = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        check.waitUntilExit()
        XCTAssertEqual(check.terminationStatus, 1, said)
        XCTAssertTrue(said.contains("jack.conf:2: output plugin \"jack\" is not supported by Nimbus; \"desktop\" will not play"), said)
        XCTAssertTrue(said.contains("no audio_output Nimbus can play on"), said)
    }
}
