import Foundation
import NimbusHarness
import XCTest

/// Twenty seeded clients mixing queue edits, playback, seeks, searches, idles and options
/// against a daemon playing local and cloud songs (a real WebDAV server). At the end the
/// daemon is alive, its memory bounded and its queue consistent. `NIMBUS_SOAK_SECONDS`
/// (`make soak`: ten minutes) sets the length; the suite runs a short one.
final class SoakTests: XCTestCase {
    private static func command(_ random: inout SeededRandom, songs: [String]) -> String {
        let song = songs.randomElement(using: &random)!
        let n = Int(random.next() % 12)
        switch random.next() % 22 {
        case 0, 1: return "add \"\(song)\""
        case 2: return "addid \"\(song)\" \(n)"
        case 3: return "delete \(n)"
        case 4: return "move \(n) \(Int(random.next() % 12))"
        case 5: return "moveid \(n) \(["+0", "-0", "+1", "-1", "0", "3"].randomElement(using: &random)!)"
        case 6: return "play \(n)"
        case 7: return "next"
        case 8: return "previous"
        case 9: return "seek \(n) \(Double(random.next() % 3000) / 1000)"
        case 10: return "seekcur +\(random.next() % 3)"
        case 11: return "search any \"\(["sine", "a", "cloud", "noise"].randomElement(using: &random)!)\""
        case 12: return "playlistinfo"
        case 13, 14: return "status"
        case 15: return "\(["random", "repeat", "consume"].randomElement(using: &random)!) \(random.next() % 2)"
        case 16: return "single \(["0", "1", "oneshot"].randomElement(using: &random)!)"
        case 17: return "stop"
        case 18: return "pause"
        case 19: return "shuffle"
        case 20: return "plchanges \(random.next() % 50)"
        default: return "clear"
        }
    }

    func testTwentyClientsForAWhile() throws {
        try XCTSkipUnless(WebDAVServer.available, "nginx with dav-ext is not installed (scripts/install-deps)")
        let seconds = Double(ProcessInfo.processInfo.environment["NIMBUS_SOAK_SECONDS"] ?? "") ?? 15
        let music = TemporaryDirectory("nimbus-soak")
        let share = TemporaryDirectory("nimbus-soak-share")
        for index in 0..<6 {
            try AudioFixtures.writeSineWAV(to: music.file("sine\(index).wav"), frames: 22_050 * (index + 1), frequency: 400 + 50 * Double(index))
        }
        try runTool("sox", ["-n", "-r", "44100", "-c", "2", "-b", "16", share.file("noise.wav"), "synth", "3", "whitenoise", "vol", "0.2"])
        try runTool("flac", ["-s", "-f", "-T", "TITLE=cloud noise", "-o", share.file("noise.flac"), share.file("noise.wav")])
        try runTool("sox", ["-n", "-r", "44100", "-c", "2", "-b", "16", share.file("a.wav"), "synth", "2", "sine", "600"])
        try runTool("flac", ["-s", "-f", "-o", share.file("a.flac"), share.file("a.wav")])
        try Data(contentsOf: URL(fileURLWithPath: share.file("a.flac"))).prefix(4000).write(to: URL(fileURLWithPath: share.file("cut.flac")))
        for name in ["noise.wav", "a.wav"] { try FileManager.default.removeItem(atPath: share.file(name)) }
        let server = try WebDAVServer(root: share.path, authenticated: false, rate: 400_000)
        let daemon = try ServerProcess(
            .nimbus, config: "cloud {\n name \"dav\"\n type \"webdav\"\n url \"\(server.url)\"\n}\nmax_playlist_length \"200\"",
            musicDirectory: music.path)
        keep = [music, share, server, daemon]
        try daemon.waitForDatabase(songs: 9, timeout: 60)
        let songs = (0..<6).map { "sine\($0).wav" } + ["dav/noise.flac", "dav/a.flac", "dav/cut.flac"]
        let deadline = Date().addingTimeInterval(seconds)
        let endpoint = daemon.endpoint
        let failures = LockedBox<[String]>([])
        let group = DispatchGroup()
        for client in 0..<20 {
            group.enter()
            Thread {
                defer { group.leave() }
                var random = SeededRandom(seed: 1000 + UInt64(client))
                while Date() < deadline {
                    guard let connection = try? LineClient(endpoint, timeout: 10), (try? connection.readLine()) != nil else {
                        failures.update { $0.append("client \(client) could not connect") }
                        return
                    }
                    for _ in 0..<50 where Date() < deadline {
                        if random.next() % 25 == 0 {
                            // An idle that another client's change ends, or a noidle.
                            guard (try? connection.send("idle\n")) != nil else { break }
                            if (try? connection.isQuiet(for: 0.05)) == true { _ = try? connection.send("noidle\n") }
                            _ = try? connection.readResponse()
                            continue
                        }
                        let line = Self.command(&random, songs: songs)
                        guard let answer = try? connection.request(line), let last = answer.last,
                            last == "OK" || last.hasPrefix("ACK")
                        else {
                            failures.update { $0.append("client \(client): no answer to \(line)") }
                            return
                        }
                    }
                }
            }.start()
        }
        XCTAssertEqual(group.wait(timeout: .now() + seconds + 60), .success, "clients never finished")
        XCTAssertEqual(failures.value, [])
        let client = try daemon.connect()
        XCTAssertEqual(try client.request("ping"), ["OK"], "the daemon is alive")
        // The queue agrees with itself: length, positions and unique ids.
        let status = try client.request("status")
        let length = Int(status.first { $0.hasPrefix("playlistlength: ") }!.dropFirst(16))!
        let info = try client.request("playlistinfo")
        let positions = info.filter { $0.hasPrefix("Pos: ") }.map { Int($0.dropFirst(5))! }
        let ids = info.filter { $0.hasPrefix("Id: ") }
        XCTAssertEqual(positions, Array(0..<length))
        XCTAssertEqual(Set(ids).count, length)
        let rss = try String(contentsOfFile: "/proc/\(daemon.process.processIdentifier)/status", encoding: .utf8)
            .split(separator: "\n").first { $0.hasPrefix("VmRSS:") }!.split(separator: " ").compactMap { Int($0) }.first!
        // A sanitizer run sets a larger bound: its shadow memory alone is hundreds of MiB.
        let bound = Int(ProcessInfo.processInfo.environment["NIMBUS_SOAK_MAX_RSS_KIB"] ?? "") ?? 300_000
        XCTAssertLessThan(rss, bound, "RSS \(rss) KiB")
        XCTAssertEqual(daemon.stop(), 0, "a clean shutdown after the soak")
        server.stop()
    }

    private var keep: [AnyObject] = []
}
