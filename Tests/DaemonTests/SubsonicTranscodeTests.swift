import Foundation
import NimbusHarness
import XCTest

/// Phones on mobile data: `stream` with a format and a bit rate made on the box (Opus, MP3,
/// AAC), checked with ffprobe and ffmpeg as a player would decode them; a seek by
/// `timeOffset` heard at the right place; the second play from the cache with a length and
/// ranges; an estimated length kept to the byte; a phone that leaves stops its encode.
final class SubsonicTranscodeTests: XCTestCase {
    var keep: [AnyObject] = []

    override func tearDown() {
        keep.removeAll()
        super.tearDown()
    }

    /// A 120 s linear sweep from 100 Hz to 3900 Hz (below the 4 kHz the check decodes to) over
    /// pink noise: what is heard at a second says which second it is (the sweep's frequency),
    /// and the noise makes the FLAC as large as music's.
    static let seconds = 120.0
    static func frequency(at second: Double) -> Double { 100 + 3800 * second / seconds }

    private func daemon(_ extra: String = "") throws -> (ServerProcess, web: Int, id: String, scratch: TemporaryDirectory) {
        let scratch = TemporaryDirectory("nimbus-transcode")
        keep.append(scratch)
        let music = scratch.file("music")
        try FileManager.default.createDirectory(atPath: music + "/Sweep", withIntermediateDirectories: true)
        let wav = scratch.file("sweep.wav")
        try runTool("sox", ["-n", "-r", "44100", "-c", "2", "-b", "16", scratch.file("tone.wav"), "synth", "120", "sine", "100:3900", "vol", "0.5"])
        try runTool("sox", ["-n", "-r", "44100", "-c", "2", "-b", "16", scratch.file("noise.wav"), "synth", "120", "pinknoise", "vol", "0.05"])
        try runTool("sox", ["-m", scratch.file("tone.wav"), scratch.file("noise.wav"), wav])
        try runTool("flac", ["-s", "-f", "-T", "ARTIST=Sweeper", "-T", "TITLE=Sweep", "-o", music + "/Sweep/sweep.flac", wav])
        let web = freePort()
        let config = "web {\n    port \"\(web)\"\n}\n" + SubsonicAPITests.user + extra
        let daemon = try ServerProcess(.nimbus, config: config, musicDirectory: music)
        keep.append(daemon)
        try daemon.waitForDatabase(songs: 1)
        return (daemon, web, SubsonicAPITests.songID("Sweep/sweep.flac"), scratch)
    }

    private func get(_ url: String, into path: String, _ options: [String] = []) throws -> (status: Int, headers: String) {
        let headers = path + ".headers"
        let status = try runTool("curl", ["-s", "-o", path, "-D", headers, "-w", "%{http_code}"] + options + [url])
        return (Int(status) ?? 0, ((try? String(contentsOfFile: headers, encoding: .utf8)) ?? "").lowercased())
    }

    private func probe(_ path: String) throws -> (codec: String, kbps: Double) {
        let out = try runTool("ffprobe", ["-v", "error", "-show_entries", "stream=codec_name:format=bit_rate", "-of", "default=nw=1", path])
        var fields: [String: String] = [:]
        for line in out.split(separator: "\n") {
            let parts = line.split(separator: "=", maxSplits: 1).map(String.init)
            if parts.count == 2 { fields[parts[0]] = parts[1] }
        }
        return (fields["codec_name"] ?? "", (Double(fields["bit_rate"] ?? "") ?? 0) / 1000)
    }

    /// The decoded sound as mono 16-bit samples at 8 kHz (what ffmpeg, a player's decoder, hears).
    private func decode(_ path: String) throws -> [Int16] {
        let raw = path + ".raw"
        try runTool("ffmpeg", ["-v", "error", "-y", "-i", path, "-ac", "1", "-ar", "8000", "-f", "s16le", raw])
        let data = try XCTUnwrap(FileManager.default.contents(atPath: raw))
        return data.withUnsafeBytes { Array($0.bindMemory(to: Int16.self)) }
    }

    /// The sweep's frequency over one second of decoded sound, by counting zero crossings of
    /// the tone (the quiet noise under it barely moves the count).
    private func heardFrequency(_ samples: [Int16], second: Int) -> Double {
        let slice = samples[(second * 8000)..<((second + 1) * 8000)]
        var crossings = 0
        var previous = slice.first ?? 0
        for sample in slice.dropFirst() {
            if (previous < 0) != (sample < 0) { crossings += 1 }
            previous = sample
        }
        return Double(crossings) / 2
    }

    func testEveryFormatDecodesAtItsRateAndLengthAndSeeksAndIsKept() throws {
        let (daemon, web, id, scratch) = try daemon()
        let base = "http://127.0.0.1:\(web)/rest/stream?u=anna&p=sesame&c=tests&id=\(id)"
        for (format, kbps, codec) in [("opus", 96, "opus"), ("mp3", 128, "mp3"), ("aac", 128, "aac")] {
            let path = scratch.file("first.\(format)")
            let (status, headers) = try get(base + "&format=\(format)&maxBitRate=\(kbps)", into: path)
            XCTAssertEqual(status, 200, format)
            XCTAssertTrue(headers.contains("transfer-encoding: chunked"), "a first transcode goes out as it is made: \(headers)")
            let probed = try probe(path)
            XCTAssertEqual(probed.codec, codec)
            XCTAssertLessThanOrEqual(probed.kbps, Double(kbps) * 1.05, "\(format) above the asked bit rate")
            XCTAssertGreaterThan(probed.kbps, Double(kbps) * 0.5, "\(format) far below the asked bit rate")
            let samples = try decode(path)
            XCTAssertEqual(Double(samples.count) / 8000, Self.seconds, accuracy: 0.1, "\(format): the song's length")
            XCTAssertEqual(heardFrequency(samples, second: 30), Self.frequency(at: 30.5), accuracy: 40, "\(format) at 30 s")

            // Played again: from the cache, a file with its length and ranges.
            let again = scratch.file("again.\(format)")
            let second = try get(base + "&format=\(format)&maxBitRate=\(kbps)", into: again)
            XCTAssertTrue(second.headers.contains("content-length: "), "\(format) second play: \(second.headers)")
            XCTAssertEqual(FileManager.default.contents(atPath: again), FileManager.default.contents(atPath: path), "the kept transcode")
            let part = scratch.file("part.\(format)")
            let ranged = try get(base + "&format=\(format)&maxBitRate=\(kbps)", into: part, ["-H", "Range: bytes=1000-1999"])
            XCTAssertEqual(ranged.status, 206)
            XCTAssertEqual(FileManager.default.contents(atPath: part), FileManager.default.contents(atPath: path)?.subdata(in: 1000..<2000))
        }

        // A seek: the encode starts at 60 s, heard there from its first second.
        let seek = scratch.file("seek.opus")
        XCTAssertEqual(try get(base + "&format=opus&maxBitRate=96&timeOffset=60", into: seek).status, 200)
        let seeked = try decode(seek)
        XCTAssertEqual(Double(seeked.count) / 8000, Self.seconds - 60, accuracy: 0.1, "what is left after 60 s")
        XCTAssertEqual(heardFrequency(seeked, second: 0), Self.frequency(at: 60.5), accuracy: 40, "the seek did not start at 60 s")

        // An estimated length, kept to the byte.
        let estimated = scratch.file("estimated.mp3")
        let answer = try get(base + "&format=mp3&maxBitRate=64&estimateContentLength=true", into: estimated)
        let promised = answer.headers.split(separator: "\r\n").first { $0.hasPrefix("content-length: ") }.flatMap { Int($0.dropFirst(16)) }
        let size = (try FileManager.default.attributesOfItem(atPath: estimated)[.size] as? Int) ?? -1
        XCTAssertEqual(promised, size, "the promised length is the length sent")
        XCTAssertEqual(Double(try decode(estimated).count) / 8000, Self.seconds, accuracy: 0.15, "the padded file still decodes whole")
        try assertGaplessMP3(estimated, original: scratch.file("sweep.wav"), label: "estimated length")
        try assertGaplessMP3(scratch.file("first.mp3"), original: scratch.file("sweep.wav"), label: "first play, chunked")
        let bytes = try XCTUnwrap(FileManager.default.contents(atPath: estimated))
        XCTAssertFalse(bytes.suffix(1024).allSatisfy { $0 == 0 }, "an MP3 of known length is not padded with zeros")

        // `raw` is the file itself; an unknown format is refused with a message.
        let raw = scratch.file("raw.flac")
        XCTAssertEqual(try get(base + "&format=raw", into: raw).status, 200)
        XCTAssertEqual(FileManager.default.contents(atPath: raw), FileManager.default.contents(atPath: scratch.file("music/Sweep/sweep.flac")))
        let refused = scratch.file("refused")
        _ = try get(base + "&format=wma&f=json", into: refused)
        XCTAssertTrue(String(decoding: FileManager.default.contents(atPath: refused) ?? Data(), as: UTF8.self).contains("\"failed\""))
        XCTAssertEqual(try daemon.connect().request("ping"), ["OK"])
    }

    /// An MP3 transcode as an encoder writes one: a Xing/LAME tag with the song's exact length,
    /// so ffmpeg (as a gapless player) decodes exactly the song's samples, aligned with the
    /// original from the first one (no empty frame and no encoder delay heard before it).
    private func assertGaplessMP3(_ path: String, original: String, label: String) throws {
        let probed = try runTool("ffprobe", ["-v", "error", "-show_entries", "format=duration", "-of", "default=nw=1:nk=1", path])
        // ffprobe counts the tag's frames whole (the encoder's delay and padding, 1,440 samples
        // here), as for any LAME file; 3% of zero bytes had made it read 123.9 s.
        XCTAssertEqual(Double(probed.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0, Self.seconds, accuracy: 0.05, "\(label): ffprobe's duration")
        let decoded = try pcm(path), source = try pcm(original)
        XCTAssertEqual(decoded.count, source.count, "\(label): decoded samples (ffmpeg trims the encoder's delay and padding)")
        // Where the decoded sound lines up with the original: by correlation of the left
        // channel over 8,192 samples two seconds in — every 8th sample at every shift within
        // ±3,000, then every sample within 16 of the best.
        let start = 2 * 44100, window = 8192
        func score(_ shift: Int, step: Int) -> Double {
            stride(from: 0, to: window, by: step).reduce(0.0) { $0 + Double(source[2 * (start + $1)]) * Double(decoded[2 * (start + $1 + shift)]) }
        }
        let coarse = (-3000...3000).max { score($0, step: 8) < score($1, step: 8) } ?? 0
        let best = (shift: ((coarse - 16)...(coarse + 16)).max { score($0, step: 1) < score($1, step: 1) } ?? 0, ())
        XCTAssertEqual(best.shift, 0, "\(label): the transcode is \(best.shift) samples off the original")
    }

    /// Interleaved stereo 16-bit samples at the file's own rate, as ffmpeg decodes them.
    private func pcm(_ path: String) throws -> [Int16] {
        let raw = path + ".pcm"
        try runTool("ffmpeg", ["-v", "error", "-y", "-i", path, "-f", "s16le", "-ac", "2", raw])
        let data = try XCTUnwrap(FileManager.default.contents(atPath: raw))
        return data.withUnsafeBytes { Array($0.bindMemory(to: Int16.self)) }
    }

    func testAPhoneThatLeavesStopsItsEncodeAndDefaultsApply() throws {
        let box = "subsonic {\n    transcode_bitrate \"96\"\n    transcode_format \"mp3\"\n    original_clients \"Purist\"\n}\n"
        let (_, web, id, scratch) = try daemon(box)
        let base = "http://127.0.0.1:\(web)/rest/"
        let auth = "u=anna&p=sesame&f=json"
        // A phone that asks for nothing gets the box's default; one named as a purist, the file.
        let plain = scratch.file("plain")
        XCTAssertEqual(try get(base + "stream?\(auth)&c=Phone&id=\(id)", into: plain).status, 200)
        XCTAssertEqual(try probe(plain).codec, "mp3")
        let purist = scratch.file("purist")
        XCTAssertEqual(try get(base + "stream?\(auth)&c=Purist&id=\(id)", into: purist).status, 200)
        XCTAssertEqual(try probe(purist).codec, "flac")

        // A phone reading slowly is listed as playing; once it hangs up, its encode ends.
        func streaming() throws -> Int {
            let listing = try runTool("curl", ["-s", base + "getNowPlaying?\(auth)&c=t"])
            return listing.components(separatedBy: "\"username\"").count - 1
        }
        let phone = Process()
        phone.executableURL = URL(fileURLWithPath: "/usr/bin/curl")
        phone.arguments = ["-s", "-o", "/dev/null", "--limit-rate", "8k", base + "stream?\(auth)&c=Slow&id=\(id)&format=opus&maxBitRate=64&timeOffset=10"]
        try phone.run()
        XCTAssertTrue(waitUntil(timeout: 10) { (try? streaming()) == 1 }, "the slow phone's transcode is not listed")
        phone.terminate()
        phone.waitUntilExit()
        XCTAssertTrue(waitUntil(timeout: 10) { (try? streaming()) == 0 }, "the encode went on after the phone left")
    }

    /// A phone skipping on: it reads the first bytes of a transcode and hangs up while the
    /// encode is in full flow (nothing is waiting on the phone), three times. The daemon must stop at
    /// once: libwebsockets left that FIN unread and the web thread spun on it, ~100 ms of
    /// CPU per skip on top of the encode it starved. CPU time, not wall time, so a busy
    /// machine does not make it fail; the encode of the whole song would take far more.
    func testAPhoneSkippingOnCostsNoCPUAfterItHangsUp() throws {
        let (daemon, web, id, _) = try daemon()
        let pid = daemon.process.processIdentifier
        func cpuSeconds() -> Double { processCPUSeconds(pid) }
        var after: [Double] = []
        for round in 0..<3 {
            guard let fd = connectLoopback(port: web) else { return XCTFail("cannot connect to \(web)") }
            let request = "GET /rest/stream?u=anna&p=sesame&c=Skipper&id=\(id)&format=opus&maxBitRate=128&timeOffset=\(round * 20) HTTP/1.1\r\n"
                + "Host: 127.0.0.1\r\nConnection: close\r\n\r\n"
            _ = Array(request.utf8).withUnsafeBytes { send(fd, $0.baseAddress, $0.count, 0) }
            var received: [UInt8] = []
            var buffer = [UInt8](repeating: 0, count: 16384)
            while received.count < 8192 {
                let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
                guard count > 0 else { break }
                received += buffer[0..<count]
            }
            XCTAssertTrue(received.starts(with: Array("HTTP/1.1 200".utf8)), String(decoding: received.prefix(60), as: UTF8.self))
            let hungUp = cpuSeconds()
            // Its end of the connection shut (a FIN, as a phone that has read all that came
            // sends); the RST of a close with unread bytes libwebsockets sees by itself.
            shutdown(fd, Int32(SHUT_WR))
            defer { close(fd) }
            // Measured until its worker is gone from the now-playing list.
            XCTAssertTrue(waitUntil(timeout: 10) {
                let listing = (try? runTool("curl", ["-s", "http://127.0.0.1:\(web)/rest/getNowPlaying?u=anna&p=sesame&f=json&c=t"])) ?? ""
                return listing.contains("nowPlaying") && !listing.contains("Skipper")
            }, "the encode went on after the phone left")
            after.append(cpuSeconds() - hungUp)
        }
        // A whole encode of the 120 s song is seconds of CPU; stopping costs one chunk's.
        XCTAssertLessThan(after.sorted()[1], 0.08, "CPU used after each hang-up: \(after)")
    }
}
