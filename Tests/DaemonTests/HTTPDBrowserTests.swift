import Foundation
import NimbusHarness
import XCTest

/// A real browser on the httpd stream: headless Chromium (Debian's, driven by selenium) plays
/// it in an `<audio>` element across song changes — the place where a chained Ogg stream
/// makes browsers stop — with no media error and a `currentTime` that keeps advancing.
final class HTTPDBrowserTests: XCTestCase {
    private var keep: [AnyObject] = []

    override func tearDown() {
        keep.removeAll()
        super.tearDown()
    }

    private struct Report: Decodable {
        let error: Int?
        let ended: Bool
        let events: [String]
        let times: [Double]
    }

    private func browse(encoder: String) throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/chromedriver") else {
            return XCTFail("chromium-driver is not installed (scripts/install-deps installs it)")
        }
        let music = TemporaryDirectory("nimbus-browser")
        keep.append(music)
        // Noise, not a sine: a browser starts once it has probed some kilobytes of the stream,
        // and a sine compresses so well that those would take many seconds to arrive.
        for (index, noise) in ["whitenoise", "pinknoise"].enumerated() {
            let wav = music.file("\(index).wav")
            try runTool("sox", ["-R", "-D", "-n", "-r", "44100", "-c", "2", "-b", "16", wav, "synth", "4", noise, "vol", "0.3"])
            try runTool("flac", ["-s", "-f", "-T", "TITLE=Song \(index)", "-o", music.file("\(index).flac"), wav])
            try FileManager.default.removeItem(atPath: wav)
        }
        let port = freePort()
        let config = httpdBlock(port: port, encoder: encoder)
        let daemon = try ServerProcess(.nimbus, config: config, musicDirectory: music.path, nullOutput: false)
        keep.append(daemon)
        try daemon.waitForDatabase(songs: 2)
        let client = try daemon.connect()
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Scripts/browser_listen.py").path
        let browser = Process()
        browser.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        browser.arguments = [script, "http://127.0.0.1:\(port)/", "14", music.file("chromium-profile")]
        let output = Pipe(), errors = Pipe()
        browser.standardOutput = output
        browser.standardError = errors
        try browser.run()
        keep.append(browser)
        // The listener connects while stopped and waits; the browser needs a moment to start.
        XCTAssertTrue(waitUntil(timeout: 30) { TCPConnections.established(toPort: port) >= 1 }, "the browser never connected")
        for command in ["add 0.flac", "add 1.flac", "play"] { XCTAssertEqual(try client.request(command), ["OK"], command) }
        XCTAssertTrue(waitUntil(timeout: 60) { !browser.isRunning }, "the browser did not finish")
        let text = output.fileHandleForReading.readDataToEndOfFile()
        let problems = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        let report = try JSONDecoder().decode(Report.self, from: text.isEmpty ? Data("{}".utf8) : text)
        XCTAssertNil(report.error, "\(encoder): media error \(report.error ?? 0); \(report.events); \(problems)")
        XCTAssertFalse(report.events.contains("error"), "\(encoder): \(report.events)")
        XCTAssertTrue(report.events.contains("playing"), "\(encoder): \(report.events)")
        // Two songs of 4 s: the browser plays past the change at 4 s, to (nearly) the end.
        let reached = report.times.max() ?? 0
        XCTAssertGreaterThan(reached, 6, "\(encoder): stopped at \(reached) s; \(report.times)")
        let moving = zip(report.times, report.times.dropFirst()).filter { $1 > $0 }.count
        XCTAssertGreaterThan(moving, 8, "\(encoder): currentTime advanced in only \(moving) samples; \(report.times)")
    }

    func testChromiumPlaysAVorbisStreamAcrossASongChange() throws {
        try browse(encoder: "vorbis")
    }

    func testChromiumPlaysAnOpusStreamAcrossASongChange() throws {
        try browse(encoder: "opus")
    }
}
