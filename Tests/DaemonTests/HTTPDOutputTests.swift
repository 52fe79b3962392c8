import Foundation
import NimbusHarness
import XCTest

/// The httpd output as listeners meet it: Debian's ffmpeg decoding the stream gets what was
/// played across song changes (WAVE and FLAC sample for sample, Vorbis by frequency), a slow
/// listener holds up neither playback nor the others, and ICY metadata names each song at
/// the announced interval.
final class HTTPDOutputTests: XCTestCase {
    private var keep: [AnyObject] = []

    override func tearDown() {
        keep.removeAll()
        super.tearDown()
    }

    /// Three songs of 1.5 s at 441, 882 and 1323 Hz (whole periods in 100 frames), tagged.
    private func music() throws -> TemporaryDirectory {
        let music = TemporaryDirectory("nimbus-httpd-music")
        for (index, frequency) in [441.0, 882.0, 1323.0].enumerated() {
            let wav = music.file("\(index).wav")
            try AudioFixtures.writeSineWAV(to: wav, frames: 66_150, firstFrame: 0, frequency: frequency)
            try runTool("flac", ["-s", "-f", "-T", "ARTIST=Band \(index)", "-T", "TITLE=Song \(index)", "-o", music.file("\(index).flac"), wav])
            try FileManager.default.removeItem(atPath: wav)
        }
        keep.append(music)
        return music
    }

    private func daemon(encoder: String, port: Int, music: TemporaryDirectory) throws -> (ServerProcess, LineClient) {
        let config = httpdBlock(port: port, encoder: encoder, extra: "format \"44100:16:2\"")
        let daemon = try ServerProcess(.nimbus, config: config, musicDirectory: music.path, nullOutput: false)
        keep.append(daemon)
        try daemon.waitForDatabase(songs: 3)
        return (daemon, try daemon.connect())
    }

    /// ffmpeg reading the stream into raw 16-bit stereo until the stream ends.
    private func listen(port: Int, into path: String) throws -> Process {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/ffmpeg")
        process.arguments = ["-hide_banner", "-loglevel", "error", "-y", "-i", "http://127.0.0.1:\(port)/", "-f", "s16le", "-ac", "2", "-ar", "44100", path]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        keep.append(process)
        return process
    }

    private func playAll(_ client: LineClient) throws {
        for command in ["add 0.flac", "add 1.flac", "add 2.flac", "play"] { XCTAssertEqual(try client.request(command), ["OK"], command) }
    }

    private func waitForExit(_ process: Process, timeout: Double = 20) -> Bool {
        waitUntil(timeout: timeout) { !process.isRunning }
    }

    /// Plays the three songs to a listener that connected while stopped: its left channel.
    private func record(_ encoder: String, music: TemporaryDirectory) throws -> [Int16] {
        let port = freePort()
        let (_, client) = try daemon(encoder: encoder, port: port, music: music)
        let raw = music.file("\(encoder).raw")
        let listener = try listen(port: port, into: raw)
        XCTAssertTrue(waitUntil { TCPConnections.established(toPort: port) >= 1 }, "\(encoder): the listener never connected")
        try playAll(client)
        XCTAssertTrue(client.waitForStatus("state: stop", timeout: 20), "\(encoder): playback did not end")
        XCTAssertTrue(waitForExit(listener), "\(encoder): the stream did not end when playback did")
        return AudioFixtures.leftChannel(Array(try Data(contentsOf: URL(fileURLWithPath: raw))))
    }

    private func crossings(_ samples: ArraySlice<Int16>) -> Int { zip(samples, samples.dropFirst()).filter { ($0 < 0) != ($1 < 0) }.count }

    func testWaveAndFLACListenersGetEverySampleAcrossSongChanges() throws {
        let music = try music()
        for encoder in ["wave", "flac"] {
            let left = try record(encoder, music: music)
            XCTAssertEqual(left.count, 3 * 66_150, "\(encoder): every frame of the three songs, nothing in between")
            for (index, frequency) in [441.0, 882.0, 1323.0].enumerated() {
                let song = left.dropFirst(index * 66_150).prefix(66_150)
                let wrong = song.enumerated().first { abs(Double($0.element) - AudioFixtures.sineSample(frame: $0.offset, frequency: frequency, amplitude: 0.5)) > 1 }
                XCTAssertNil(wrong, "\(encoder): song \(index) differs at frame \(wrong?.offset ?? -1)")
            }
        }
    }

    /// A listener that reads a few bytes a second is left behind alone: the fast one gets the
    /// whole Vorbis stream, and playback takes its real time, not the slow one's.
    func testASlowListenerHoldsUpNeitherPlaybackNorTheOthers() throws {
        let music = try music()
        let port = freePort()
        let (_, client) = try daemon(encoder: "vorbis", port: port, music: music)
        let slow = try LineClient(.tcp(host: "127.0.0.1", port: port))
        try slow.send("GET / HTTP/1.1\r\nHost: x\r\n\r\n")
        let raw = music.file("vorbis.raw")
        let listener = try listen(port: port, into: raw)
        XCTAssertTrue(waitUntil { TCPConnections.established(toPort: port) >= 2 }, "both listeners connected")
        try playAll(client)
        // The slow listener reads nothing at all: playback held up by it would never end.
        XCTAssertTrue(client.waitForStatus("state: stop", timeout: 60), "playback waited for the listener that does not read")
        XCTAssertTrue(waitForExit(listener))
        let left = AudioFixtures.leftChannel(Array(try Data(contentsOf: URL(fileURLWithPath: raw))))
        XCTAssertEqual(Double(left.count), 3 * 66_150, accuracy: 4096, "the fast listener heard all three songs")
        for (index, frequency) in [441.0, 882.0, 1323.0].enumerated() {
            let middle = left.dropFirst(index * 66_150 + 11_025).prefix(44_100)
            XCTAssertEqual(Double(crossings(middle)), 2 * frequency, accuracy: 0.02 * frequency, "song \(index) at \(frequency) Hz")
        }
        withExtendedLifetime(slow) {}
    }

    /// A listener joining a running stream gets the last second and a half at once (after the
    /// stream header), then real time: its decoder starts without waiting for a buffer to fill.
    func testALateListenerGetsABurstOfTheLastSecondAndAHalf() throws {
        let music = try music()
        let port = freePort()
        let (_, client) = try daemon(encoder: "wave", port: port, music: music)
        try playAll(client)
        XCTAssertTrue(client.waitForStatus("state: play", "song: 1"), "the second song did not start")
        let late = try LineClient(.tcp(host: "127.0.0.1", port: port), timeout: 5)
        try late.send("GET / HTTP/1.0\r\n\r\n")
        var received: [UInt8] = []
        let start = Date()
        var buffer = [UInt8](repeating: 0, count: 65536)
        // 44-byte WAV header, then 176,400 bytes per second of 44100:16:2.
        func audioSeconds() -> Double? {
            guard let end = (0..<max(0, received.count - 3)).first(where: { received[$0..<($0 + 4)].elementsEqual([13, 10, 13, 10]) }) else { return nil }
            return Double(received.count - end - 4 - 44) / 176_400
        }
        // Read until the burst is in (however long a busy machine takes), then compare what
        // came with the time it took: the burst, then no faster than real time.
        while (audioSeconds() ?? 0) < 1.4, Date().timeIntervalSince(start) < 30 {
            let count = buffer.withUnsafeMutableBytes { recv(late.fd, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
            if count > 0 { received += buffer[..<count] } else { usleep(5000) }
        }
        let took = Date().timeIntervalSince(start)
        let audio = try XCTUnwrap(audioSeconds(), "no HTTP answer")
        XCTAssertGreaterThan(audio, 1.4, "a burst of what was just played")
        XCTAssertLessThan(audio, 1.5 + took + 0.25, "no more than the burst and real time")
    }

    func testICYMetadataNamesEachSongAtTheAnnouncedInterval() throws {
        let music = try music()
        let port = freePort()
        let (_, client) = try daemon(encoder: "wave", port: port, music: music)
        let script = """
            import socket, sys, re
            s = socket.create_connection(("127.0.0.1", \(port)))
            s.sendall(b"GET / HTTP/1.0\\r\\nIcy-MetaData: 1\\r\\n\\r\\n")
            f = s.makefile("rb")
            headers = {}
            while True:
                line = f.readline().decode().strip()
                if not line: break
                if ":" in line:
                    k, v = line.split(":", 1); headers[k.strip().lower()] = v.strip()
            interval = int(headers["icy-metaint"])
            print("metaint", interval, headers.get("icy-name"))
            titles = []
            while True:
                audio = f.read(interval)
                if len(audio) < interval: break
                n = f.read(1)
                if not n: break
                meta = f.read(n[0] * 16)
                if meta:
                    title = re.search(rb"StreamTitle='(.*?)';", meta).group(1).decode()
                    if not titles or titles[-1] != title: titles.append(title)
            print("titles", "|".join(titles))
            """
        let reader = Process()
        reader.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        reader.arguments = ["-c", script]
        let output = Pipe()
        reader.standardOutput = output
        try reader.run()
        keep.append(reader)
        XCTAssertTrue(waitUntil { TCPConnections.established(toPort: port) >= 1 }, "the ICY reader never connected")
        try playAll(client)
        XCTAssertTrue(client.waitForStatus("state: stop", timeout: 20))
        XCTAssertTrue(waitForExit(reader))
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        XCTAssertTrue(text.contains("metaint 8192 Nimbus stream"), text)
        XCTAssertTrue(text.contains("titles Band 0 - Song 0|Band 1 - Song 1|Band 2 - Song 2"), text)
    }

    /// MP3 (LAME) and Opus (48 kHz, resampled from the 44.1 kHz songs) decode to the three
    /// songs' frequencies, one after the other, with nothing missing.
    func testLameAndOpusStreamsCarryEverySong() throws {
        let music = try music()
        for encoder in ["lame", "opus"] {
            let left = try record(encoder, music: music)
            // A raw MP3 stream has no LAME header to trim the encoder's delay and last frame by.
            XCTAssertEqual(Double(left.count), 3 * 66_150, accuracy: 4 * 1152, "\(encoder): all three songs")
            for (index, frequency) in [441.0, 882.0, 1323.0].enumerated() {
                let middle = left.dropFirst(index * 66_150 + 11_025).prefix(44_100)
                XCTAssertEqual(Double(crossings(middle)), 2 * frequency, accuracy: 0.02 * frequency, "\(encoder): song \(index)")
            }
        }
    }

    /// An encoder its settings refuse fails the output with the reason, and the daemon lives
    /// on (the encoder it half made is freed once).
    func testAnEncoderThatRefusesItsSettingsFailsTheOutputOnly() throws {
        let music = try music()
        let config = """
            audio_output {
                type "httpd"
                name "bad"
                port "\(freePort())"
                bind_to_address "127.0.0.1"
                encoder "opus"
                bitrate "7"
            }
            """
        let daemon = try ServerProcess(.nimbus, config: config, musicDirectory: music.path, nullOutput: false)
        keep.append(daemon)
        try daemon.waitForDatabase(songs: 3)
        let client = try daemon.connect()
        try playAll(client)
        XCTAssertTrue(waitUntil { (try? client.request("status"))?.contains { $0.contains("Opus bitrate \"7\"") } == true })
        XCTAssertTrue(daemon.process.isRunning)
        XCTAssertEqual(try client.request("ping"), ["OK"])
    }
}

/// The httpd output block the stream tests configure, on loopback.
func httpdBlock(port: Int, encoder: String, extra: String = "") -> String {
    """
    audio_output {
        type "httpd"
        name "Nimbus stream"
        port "\(port)"
        bind_to_address "127.0.0.1"
        encoder "\(encoder)"
        \(extra)
    }
    """
}
