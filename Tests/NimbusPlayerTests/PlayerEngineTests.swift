import Foundation
import NimbusDecoder
import NimbusInput
import NimbusModel
import NimbusOutput
import NimbusPlayer
import Synchronization
import NimbusHarness
import XCTest

/// The engine with real decoders and ALSA's `file` plugin (configured in-process) as output.
final class PlayerEngineTests: XCTestCase {
    /// Records events (all but `.decoding`) and, like the core, names the follower of every
    /// song the decoder takes up after the first: here always the end of the queue.
    private final class Recorder: Sendable {
        let events = Mutex<[PlayerEvent]>([])
        let finished = DispatchSemaphore(value: 0)
        let engine = Mutex<PlayerEngine?>(nil)

        func record(_ event: PlayerEvent) {
            if case .decoding(let token) = event {
                if token != 1 { engine.withLock { $0 }?.setNext(nil, after: token) }
                return
            }
            events.withLock { $0.append(event) }
            if event == .finished { finished.signal() }
        }

        func makeEngine() -> PlayerEngine {
            let engine = PlayerEngine { [unowned self] in self.record($0) }
            self.engine.withLock { $0 = engine }
            return engine
        }
    }

    private func item(_ path: String, token: UInt64, start: Int = 0, end: Int? = nil) -> PlayItem {
        PlayItem(token: token, queueID: Int(token), uri: path, startMilliseconds: start, endMilliseconds: end) {
            try DecoderRegistry.standard.openDecoder(for: path, stream: try FileInputStream(path: path))
        }
    }

    private func fileOutput(_ path: String) -> PlayerEngine.OutputSlot {
        let config = "pcm.capture { type file slave.pcm { type null } file \"\(path)\" format \"raw\" }\n"
        return PlayerEngine.OutputSlot(id: 0, name: "file", fixedFormat: nil) {
            ALSAOutput(device: "capture", configuration: config)
        }
    }

    func testTwoSongsPlayBackToBackWithoutAGap() throws {
        let directory = TemporaryDirectory()
        try AudioFixtures.writeRampWAV(to: directory.file("a.wav"), frames: 30_000)
        try AudioFixtures.writeRampWAV(to: directory.file("b.wav"), frames: 20_000)
        let recorder = Recorder()
        let engine = recorder.makeEngine()
        engine.setOutputs([fileOutput(directory.file("out.raw"))])
        engine.play(item(directory.file("a.wav"), token: 1), next: item(directory.file("b.wav"), token: 2))
        XCTAssertEqual(recorder.finished.wait(timeout: .now() + 10), .success)
        let output = Array(try Data(contentsOf: URL(fileURLWithPath: directory.file("out.raw"))))
        XCTAssertEqual(output.count, 50_000 * 4)
        XCTAssertEqual(AudioFixtures.rampIndex(output[(29_999 * 4)...]), 29_999)
        XCTAssertEqual(AudioFixtures.rampIndex(output[(30_000 * 4)...]), 0, "b starts right after a's last frame")
        XCTAssertEqual(recorder.events.withLock { $0 }, [.started(token: 1), .started(token: 2), .finished])
    }

    func testStartOffsetAndRangeEnd() throws {
        let directory = TemporaryDirectory()
        try AudioFixtures.writeRampWAV(to: directory.file("a.wav"), frames: 88_200)
        let recorder = Recorder()
        let engine = recorder.makeEngine()
        engine.setOutputs([fileOutput(directory.file("out.raw"))])
        engine.play(item(directory.file("a.wav"), token: 1, start: 500, end: 1000), next: nil)
        XCTAssertEqual(recorder.finished.wait(timeout: .now() + 10), .success)
        let output = Array(try Data(contentsOf: URL(fileURLWithPath: directory.file("out.raw"))))
        XCTAssertEqual(output.count, 22_050 * 4)
        XCTAssertEqual(AudioFixtures.rampIndex(output), 22_050)
    }

    func testABrokenSongIsReportedAndSkipped() throws {
        let directory = TemporaryDirectory()
        try AudioFixtures.writeRampWAV(to: directory.file("b.wav"), frames: 1000)
        _ = FileManager.default.createFile(atPath: directory.file("bad.wav"), contents: Data("not audio".utf8))
        let recorder = Recorder()
        let engine = recorder.makeEngine()
        engine.setOutputs([fileOutput(directory.file("out.raw"))])
        engine.play(item(directory.file("bad.wav"), token: 1), next: item(directory.file("b.wav"), token: 2))
        XCTAssertEqual(recorder.finished.wait(timeout: .now() + 10), .success)
        let events = recorder.events.withLock { $0 }
        XCTAssertEqual(events.first, .failed(token: 1, message: "not a RIFF/WAVE file"))
        XCTAssertTrue(events.contains(.started(token: 2)))
    }

    func testPacedNullOutputKeepsRealTime() throws {
        let directory = TemporaryDirectory()
        try AudioFixtures.writeRampWAV(to: directory.file("a.wav"), frames: 22_050)
        let recorder = Recorder()
        let engine = recorder.makeEngine()
        engine.setOutputs([])
        let start = Date()
        engine.play(item(directory.file("a.wav"), token: 1), next: nil)
        XCTAssertEqual(recorder.finished.wait(timeout: .now() + 10), .success)
        XCTAssertGreaterThan(Date().timeIntervalSince(start), 0.45)
    }

    /// A decoder that gives 0.05 s of silence every `pause` seconds: slower than real time
    /// when `pause` is longer.
    private final class SlowDecoder: AudioDecoder {
        let format = AudioFormat(sampleRate: 44100, sample: .s16, channels: 2)
        let totalFrames: Int64? = 44100
        let bitRate = 0
        let pause: Double
        private var left: Int64 = 44100
        init(pause: Double) { self.pause = pause }
        func decode(into buffer: UnsafeMutableRawBufferPointer) throws(DecoderError) -> Int {
            guard left > 0 else { return 0 }
            Thread.sleep(forTimeInterval: pause)
            let frames = Int(min(left, 2205, Int64(buffer.count / 4)))
            buffer.initializeMemory(as: UInt8.self, repeating: 0)
            left -= Int64(frames)
            return frames
        }
        func seek(toFrame frame: Int64) throws(DecoderError) { left = 44100 - frame }
    }

    /// An output that keeps real time and finds the pipe empty mid-song says so, once the
    /// song is over (the daemon logs it); one the decoder keeps ahead of says nothing.
    func testAPacedOutputTellsWhenItRanDry() throws {
        for (pause, expectDry) in [(0.2, true), (0.0, false)] {
            let recorder = Recorder()
            let engine = recorder.makeEngine()
            engine.setOutputs([])
            engine.play(PlayItem(token: 1, queueID: 1, uri: "slow", startMilliseconds: 0, endMilliseconds: nil) { SlowDecoder(pause: pause) }, next: nil)
            XCTAssertEqual(recorder.finished.wait(timeout: .now() + 30), .success)
            let dry = recorder.events.withLock { $0 }.compactMap { event -> Int? in
                if case .ranDry(_, let times) = event { return times }
                return nil
            }
            XCTAssertEqual(!dry.isEmpty, expectDry, "pause \(pause): \(recorder.events.withLock { $0 })")
        }
    }
}
