import Foundation
import NimbusHarness
import XCTest

/// MPD's `filter` blocks named by an output's `filters`: a `route` that swaps the sides
/// reaches a pipe output sample for sample; an unknown name leaves the output unusable with
/// MPD's message.
final class FilterBlockTests: XCTestCase {
    func testARouteFilterSwapsTheChannels() throws {
        let music = TemporaryDirectory("nimbus-route")
        let frames = 44100
        try AudioFixtures.writeRampWAV(to: music.file("ramp.wav"), frames: frames)
        let raw = music.file("piped.raw")
        let config = """
            filter {
                plugin "route"
                name "swap"
                routes "0>1, 1>0"
            }
            audio_output {
                type "pipe"
                name "p"
                command "cat > '\(raw)'"
                format "44100:32:2"
                mixer_type "none"
                filters "swap"
            }
            """
        let daemon = try ServerProcess(.nimbus, config: config, musicDirectory: music.path, nullOutput: false)
        try daemon.waitForDatabase(songs: 1)
        let client = try daemon.connect()
        for command in ["add ramp.wav", "play"] { XCTAssertEqual(try client.request(command), ["OK"], command) }
        XCTAssertTrue(client.waitForStatus("state: stop", timeout: 60))
        XCTAssertTrue(waitUntil { (try? FileManager.default.attributesOfItem(atPath: raw)[.size] as? Int) == frames * 8 }, daemon.log)
        let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: raw)))
        func sample(_ index: Int) -> Int32 {
            Int32(bitPattern: UInt32(bytes[index]) | UInt32(bytes[index + 1]) << 8 | UInt32(bytes[index + 2]) << 16 | UInt32(bytes[index + 3]) << 24)
        }
        var wrong = 0
        for frame in 0..<frames {
            // The ramp's left is the frame's low 16 bits, its right the high ones (as signed 16-bit).
            let left = Int32(Int16(truncatingIfNeeded: frame)), right = Int32(Int16(truncatingIfNeeded: frame >> 16))
            if sample(frame * 8) != right << 16 || sample(frame * 8 + 4) != left << 16 { wrong += 1 }
        }
        XCTAssertEqual(wrong, 0, "frames not swapped exactly")
    }

    func testAnUnknownFilterLeavesTheOutputUnusable() throws {
        let music = TemporaryDirectory("nimbus-route-unknown")
        try AudioFixtures.writeRampWAV(to: music.file("ramp.wav"), frames: 4410)
        let config = "audio_output {\n type \"null\"\n name \"n\"\n filters \"nowhere\"\n}\n"
        let daemon = try ServerProcess(.nimbus, config: config, musicDirectory: music.path, nullOutput: false)
        try daemon.waitForDatabase(songs: 1)
        let client = try daemon.connect()
        for command in ["add ramp.wav", "play"] { XCTAssertEqual(try client.request(command), ["OK"], command) }
        XCTAssertTrue(client.waitForStatus("state: pause", timeout: 20))
        let status = try client.request("status")
        XCTAssertTrue(status.contains { $0.hasPrefix("error: ") && $0.contains("No such filter: nowhere") }, "\(status)")
        XCTAssertTrue((daemon.log + daemon.output).contains("No such filter: nowhere; \"n\" ignored"), "log: \(daemon.log) output: \(daemon.output) in \(daemon.directory.path): \((try? FileManager.default.contentsOfDirectory(atPath: daemon.directory.path)) ?? [])")
    }
}
