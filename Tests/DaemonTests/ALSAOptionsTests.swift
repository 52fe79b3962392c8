import Foundation
import NimbusHarness
import XCTest

/// MPD's ALSA options: with `close_on_pause "yes"` the device is let go while paused (other
/// programs may use it) and opened again on resume — seen as a second opening of ALSA's `file`
/// PCM; without it the device stays open and playback goes on in the same opening.
final class ALSAOptionsTests: XCTestCase {
    private func pauseAndResume(closeOnPause: Bool) throws -> Int {
        let music = TemporaryDirectory("nimbus-alsa-options")
        try AudioFixtures.writeRampWAV(to: music.file("ramp.wav"), frames: 44100 * 20)
        let capture = ALSACapture(in: music, separate: true)
        let block = ALSACapture.outputBlock().replacingOccurrences(
            of: "mixer_type", with: "close_on_pause \"\(closeOnPause ? "yes" : "no")\"\n    buffer_time \"200000\"\n    mixer_type")
        // The paced null output sets the pace, so the song is still playing when paused.
        let daemon = try ServerProcess(.nimbus, config: block, musicDirectory: music.path, environment: capture.environment)
        try daemon.waitForDatabase(songs: 1)
        let client = try daemon.connect()
        for command in ["add ramp.wav", "play"] { XCTAssertEqual(try client.request(command), ["OK"], command) }
        func elapsed() -> Double {
            Double(((try? client.request("status")) ?? []).first { $0.hasPrefix("elapsed: ") }?.dropFirst(9) ?? "") ?? 0
        }
        XCTAssertTrue(waitUntil { elapsed() > 0.5 })
        XCTAssertEqual(try client.request("pause 1"), ["OK"])
        let pid = daemon.process.processIdentifier
        func holdsDevice() -> Bool {
            let fds = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd")) ?? []
            return fds.contains { (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/fd/\($0)"))?.hasPrefix(capture.outputPath) == true }
        }
        if closeOnPause {
            XCTAssertTrue(waitUntil { !holdsDevice() }, "the device is let go while paused")
        } else {
            XCTAssertTrue(holdsDevice(), "the device stays open while paused")
        }
        XCTAssertEqual(try client.request("pause 0"), ["OK"])
        let resumedAt = elapsed()
        XCTAssertTrue(waitUntil { elapsed() > resumedAt + 0.5 }, "playback goes on after resume")
        if closeOnPause { XCTAssertTrue(waitUntil { capture.openings.count == 2 }, "opened again on resume") }
        XCTAssertEqual(try client.request("stop"), ["OK"])
        XCTAssertFalse(try client.request("status").contains { $0.hasPrefix("error:") })
        return capture.openings.count
    }

    func testCloseOnPauseLetsTheDeviceGo() throws {
        XCTAssertEqual(try pauseAndResume(closeOnPause: true), 2)
    }

    func testWithoutItTheDeviceStaysOpen() throws {
        XCTAssertEqual(try pauseAndResume(closeOnPause: false), 1)
    }
}
