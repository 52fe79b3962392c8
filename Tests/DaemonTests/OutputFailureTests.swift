import Foundation
import Glibc
import NimbusHarness
import XCTest

/// One output failing never silences the others; the fifo output keeps its FIFO, so a
/// snapserver reading it (in both of its modes) is fed and never loses it.
final class OutputFailureTests: XCTestCase {
    private var keep: [AnyObject] = []

    override func tearDown() {
        keep.removeAll()
        super.tearDown()
    }

    /// Reads a FIFO on its own thread until `stop`, keeping every byte.
    final class FifoReader: @unchecked Sendable {
        // Invariant: `data` and `running` are only touched with `lock` held.
        private let lock = NSLock()
        private var data: [UInt8] = []
        private var running = true
        private let fd: Int32

        init(path: String) {
            fd = open(path, O_RDONLY | O_NONBLOCK)
            Thread { [self] in run() }.start()
        }

        private func run() {
            var buffer = [UInt8](repeating: 0, count: 65536)
            while lock.withLock({ running }) {
                var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
                guard poll(&poller, 1, 50) > 0 else { continue }
                let got = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress!, $0.count) }
                if got > 0 { lock.withLock { data += buffer[..<got] } } else if got == 0 { usleep(10_000) }
            }
        }

        /// Bytes read so far.
        var count: Int { lock.withLock { data.count } }

        func stop() -> [UInt8] {
            lock.withLock {
                running = false
                return data
            }
        }

        deinit { close(fd) }
    }

    private func fifoBlock(_ path: String, format: String? = "44100:16:2") -> String {
        "audio_output {\n type \"fifo\"\n name \"Room\"\n path \"\(path)\"\n\(format.map { " format \"\($0)\"\n" } ?? "")}\n"
    }

    private let missingALSA = "audio_output {\n type \"alsa\"\n name \"USB DAC\"\n device \"hw:7,0\"\n}\n"

    func testAnALSAOutputOnAMissingDeviceLeavesTheFifoPlaying() throws {
        let music = TemporaryDirectory("nimbus-outputs")
        try AudioFixtures.writeSineWAV(to: music.file("sine.wav"), frames: 88_200, frequency: 1500)
        let fifo = music.file("room.fifo")
        XCTAssertEqual(mkfifo(fifo, 0o666), 0)
        let reader = FifoReader(path: fifo)
        let daemon = try ServerProcess(
            .nimbus, config: missingALSA + fifoBlock(fifo), musicDirectory: music.path, nullOutput: false)
        keep += [music, daemon]
        try daemon.waitForDatabase(songs: 1)
        let client = try daemon.connect()
        XCTAssertEqual(try client.request("add sine.wav"), ["OK"])
        XCTAssertEqual(try client.request("play"), ["OK"])
        XCTAssertTrue(waitUntil(timeout: 10) {
            (try? client.request("status"))?.contains { $0.hasPrefix("error: Failed to open \"USB DAC\" (alsa)") } == true
        }, "the failure is shown in status")
        XCTAssertTrue(client.waitForStatus("state: stop"), "playback did not end")
        XCTAssertTrue(waitUntil(timeout: 10) { reader.count >= 88_200 * 4 }, "the fifo got every frame")
        let left = AudioFixtures.leftChannel(reader.stop())
        XCTAssertEqual(left.count, 88_200, "every frame reached the fifo")
        for (index, sample) in left.enumerated()
        where abs(Double(sample) - AudioFixtures.sineSample(frame: index, frequency: 1500, amplitude: 0.5)) > 1 {
            return XCTFail("frame \(index) is \(sample)")
        }
        XCTAssertTrue(daemon.log.contains("Failed to open \"USB DAC\" (alsa)"), daemon.log)
        XCTAssertTrue(daemon.log.contains("the other outputs play on"), daemon.log)
        // Retried when playback starts again.
        XCTAssertEqual(try client.request("play"), ["OK"])
        XCTAssertTrue(waitUntil(timeout: 10) { daemon.log.components(separatedBy: "Failed to open \"USB DAC\"").count > 2 })
    }

    /// As MPD's player: with no output left, playback pauses with the error ("the user may
    /// resume playback as soon as an audio output becomes available"), and resuming tries
    /// the outputs again.
    func testWhenEveryOutputFailsPlaybackPausesWithTheError() throws {
        let music = TemporaryDirectory("nimbus-outputs")
        try AudioFixtures.writeSineWAV(to: music.file("sine.wav"), frames: 88_200, frequency: 1500)
        let daemon = try ServerProcess(.nimbus, config: missingALSA, musicDirectory: music.path, nullOutput: false)
        keep += [music, daemon]
        try daemon.waitForDatabase(songs: 1)
        let client = try daemon.connect()
        XCTAssertEqual(try client.request("add sine.wav"), ["OK"])
        XCTAssertEqual(try client.request("play"), ["OK"])
        XCTAssertTrue(client.waitForStatus("state: pause", timeout: 10))
        XCTAssertTrue(try client.request("status").contains { $0.hasPrefix("error: Failed to open \"USB DAC\"") })
        XCTAssertTrue(daemon.log.contains("no output is left; playback pauses"), daemon.log)
        XCTAssertEqual(try client.request("pause 0"), ["OK"])
        XCTAssertTrue(waitUntil(timeout: 10) { daemon.log.components(separatedBy: "Failed to open \"USB DAC\"").count > 2 }, "tried again")
        XCTAssertTrue(client.waitForStatus("state: pause", timeout: 10), "and paused again")
    }

    func testTheFifoOutputKeepsItsFifo() throws {
        let music = TemporaryDirectory("nimbus-outputs")
        try AudioFixtures.writeSineWAV(to: music.file("sine.wav"), frames: 22_050, frequency: 1500)
        let fifo = music.file("created.fifo")
        let daemon = try ServerProcess(.nimbus, config: fifoBlock(fifo), musicDirectory: music.path, nullOutput: false)
        keep += [music, daemon]
        try daemon.waitForDatabase(songs: 1)
        let client = try daemon.connect()
        XCTAssertEqual(try client.request("add sine.wav"), ["OK"])
        XCTAssertEqual(try client.request("play"), ["OK"])
        XCTAssertTrue(client.waitForStatus("state: stop"))
        var info = stat()
        XCTAssertEqual(lstat(fifo, &info), 0, "the fifo is still there after playback stopped")
        XCTAssertEqual(info.st_mode & S_IFMT, S_IFIFO)
        XCTAssertEqual(daemon.stop(), 0)
        XCTAssertEqual(lstat(fifo, &info), 0, "the fifo is still there after the daemon stopped")
    }

    // MARK: snapserver

    func testSnapserverReadingTheFifo() throws { try checkSnapserver(mode: "read") }
    func testSnapserverCreatingTheFifo() throws { try checkSnapserver(mode: "create") }

    /// Real snapserver with a real snapclient writing what it plays to a file: the sine
    /// arrives, and after playback stops snapserver logs no reconnection errors.
    private func checkSnapserver(mode: String) throws {
        try XCTSkipUnless(FileManager.default.isExecutableFile(atPath: "/usr/bin/snapserver"), "snapserver is not installed")
        try XCTSkipUnless(FileManager.default.isExecutableFile(atPath: "/usr/bin/snapclient"), "snapclient is not installed")
        let work = TemporaryDirectory("nimbus-snap")
        let fifo = work.file("snapfifo")
        if mode == "read" { XCTAssertEqual(mkfifo(fifo, 0o666), 0) }
        try AudioFixtures.writeSineWAV(to: work.file("sine.wav"), frames: 44_100 * 4, frequency: 1000)
        let ports = (freePort(), freePort(), freePort())
        let snapLog = work.file("snapserver.log")
        let server = try ChildProcess(
            "/usr/bin/snapserver",
            [
                "-c", work.write("snapserver.conf", ""), "--server.datadir=\(work.path)",
                "--stream.source=pipe://\(fifo)?name=nimbus&mode=\(mode)", "--stream.bind_to_address=127.0.0.1",
                "--stream.port=\(ports.0)", "--tcp.bind_to_address=127.0.0.1", "--tcp.port=\(ports.1)",
                "--http.bind_to_address=127.0.0.1", "--http.port=\(ports.2)", "--logging.sink=file:\(snapLog)",
            ])
        XCTAssertTrue(waitUntil { mode == "read" || FileManager.default.fileExists(atPath: fifo) }, "snapserver made no fifo")
        XCTAssertTrue(waitUntil { (try? LineClient(.tcp(host: "127.0.0.1", port: ports.0), timeout: 1)) != nil })
        let captured = work.file("captured.raw")
        let client = try ChildProcess(
            "/usr/bin/snapclient",
            ["-h", "127.0.0.1", "-p", String(ports.0), "--player", "file:filename=\(captured)", "--logsink", "null"])
        let daemon = try ServerProcess(.nimbus, config: fifoBlock(fifo, format: nil), musicDirectory: work.path, nullOutput: false)
        keep += [work, server, client, daemon]
        try daemon.waitForDatabase(songs: 1)
        let mpd = try daemon.connect()
        XCTAssertEqual(try mpd.request("add sine.wav"), ["OK"])
        XCTAssertEqual(try mpd.request("play"), ["OK"])
        XCTAssertTrue(mpd.waitForStatus("state: stop", timeout: 15))
        let errorsAtStop = Self.exceptions(in: snapLog)
        Thread.sleep(forTimeInterval: 2.5)
        XCTAssertLessThanOrEqual(Self.exceptions(in: snapLog) - errorsAtStop, 1, "snapserver lost the fifo after playback stopped")
        // 48000:16:2 as snapserver expects; the sine's zero crossings give its frequency.
        let bytes = (try? Array(Data(contentsOf: URL(fileURLWithPath: captured)))) ?? []
        let loud = Array(AudioFixtures.leftChannel(bytes).drop { abs($0) < 1000 }.dropFirst(4800).prefix(48_000 * 2))
        XCTAssertGreaterThan(loud.count, 48_000, "less than a second of audio reached snapclient")
        let crossings = zip(loud, loud.dropFirst()).filter { ($0 < 0) != ($1 < 0) }.count
        XCTAssertEqual(Double(crossings) / (Double(loud.count) / 48_000), 2000, accuracy: 60, "not the 1 kHz sine")
    }

    private static func exceptions(in log: String) -> Int {
        ((try? String(contentsOfFile: log, encoding: .utf8)) ?? "").components(separatedBy: "xception").count - 1
    }
}
