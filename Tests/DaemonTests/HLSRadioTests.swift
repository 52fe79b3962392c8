import Foundation
import NimbusHarness
import XCTest

/// HLS radio (`http://…/stream.m3u8` and MPD's `hls+http://`), which public broadcasters
/// increasingly offer alone: played through FFmpeg's HLS demuxer as MPD plays it — the
/// playlist and its segments fetched from the test's HTTP server, the audio reaching a pipe
/// output whole.
final class HLSRadioTests: XCTestCase {
    func testAnHLSStreamPlaysToTheEnd() throws {
        let server = try HTTPFileServer()
        let hls = server.root + "/live"
        try FileManager.default.createDirectory(atPath: hls, withIntermediateDirectories: true)
        _ = try runTool("ffmpeg", [
            "-v", "error", "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=44100:duration=6", "-ac", "2", "-c:a", "aac", "-b:a", "96k",
            "-f", "hls", "-hls_time", "2", "-hls_playlist_type", "vod", "-hls_segment_filename", hls + "/part%02d.ts", hls + "/stream.m3u8",
        ])
        // Segments carry the station's token too, as CDN-signed streams do.
        let list = try String(contentsOfFile: hls + "/stream.m3u8", encoding: .utf8)
        try list.split(separator: "\n").map { $0.hasSuffix(".ts") ? $0 + "?token=s3cr3t" : String($0) }.joined(separator: "\n")
            .write(toFile: hls + "/stream.m3u8", atomically: true, encoding: .utf8)
        let music = TemporaryDirectory("nimbus-hls")
        // A station's token in the query string must never reach the log.
        let playlist = "/live/stream.m3u8?token=s3cr3t"
        for (index, uri) in [server.url + playlist, "hls+" + server.url + playlist].enumerated() {
            let raw = music.file("played\(index).raw")
            let config = "audio_output {\n type \"pipe\"\n name \"p\"\n command \"cat > '\(raw)'\"\n format \"44100:16:2\"\n mixer_type \"none\"\n}\n"
            let daemon = try ServerProcess(.nimbus, config: config, musicDirectory: music.path, nullOutput: false)
            let client = try daemon.connect()
            XCTAssertEqual(try client.request("add \"\(uri)\""), ["OK"], uri)
            XCTAssertEqual(try client.request("play"), ["OK"])
            XCTAssertTrue(client.waitForStatus("state: stop", timeout: 60), daemon.log)
            let status = try client.request("status")
            XCTAssertFalse(status.contains { $0.hasPrefix("error:") }, "\(uri): \(status) \(daemon.log)")
            let bytes = (try? FileManager.default.attributesOfItem(atPath: raw)[.size] as? Int) ?? 0
            // Six seconds of 16-bit stereo, give or take AAC's priming and padding.
            XCTAssertEqual(Double(bytes) / Double(44100 * 4), 6, accuracy: 0.2, "\(uri): \(bytes) bytes")
            XCTAssertFalse((daemon.log + daemon.output).contains("s3cr3t"), "a query string reached the log: \(daemon.log) \(daemon.output)")
        }
        withExtendedLifetime(server) {}
    }

    /// RTSP and RTMP go to FFmpeg as in MPD: a station that does not answer is a clear error in
    /// `status`, not `No decoder`.
    func testRTSPAndRTMPAreFFmpegsToOpen() throws {
        let music = TemporaryDirectory("nimbus-rtsp")
        let daemon = try ServerProcess(.nimbus, musicDirectory: music.path)
        let client = try daemon.connect()
        for uri in ["rtsp://127.0.0.1:\(freePort())/live", "rtmp://127.0.0.1:\(freePort())/live/radio"] {
            XCTAssertEqual(try client.request("clear"), ["OK"])
            XCTAssertEqual(try client.request("add \"\(uri)\""), ["OK"], uri)
            XCTAssertEqual(try client.request("play"), ["OK"])
            var status: [String] = []
            XCTAssertTrue(waitUntil(timeout: 30) {
                status = (try? client.request("status")) ?? []
                return status.contains { $0.hasPrefix("error: ") }
            }, "\(uri): \(status)")
            XCTAssertTrue(status.contains { $0.hasPrefix("error: ") && $0.contains("FFmpeg cannot open \(uri)") }, "\(status)")
        }
    }
}
