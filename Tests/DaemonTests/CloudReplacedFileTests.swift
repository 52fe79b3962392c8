import Foundation
import NimbusHarness
import XCTest

/// A cloud file replaced on the server while part of its old version sits in the cache, played
/// with the server misbehaving — the procedure a held-out review ran, kept as a test:
/// rclone's WebDAV (listings not cached) behind a relay; version 1 (10.2 s) in the database
/// and partly cached by playing it 1.5 s through the relay throttled to 20 KB/s, then `stop`;
/// the file replaced by version 2 (9.0 s, other sound, modified 5 s later: a new ETag and
/// length) with no `update`; then played to an unpaced output with the relay faulting each
/// request (20% cut mid-body, 15% stalled 2 s, 15% throttled to 50 KB/s, 15% a 500 or 503).
/// The only acceptable results: version 2 exactly, version 1 exactly, or an error.
extension CloudWebDAVTests {
    /// Seeds per format in `make test`; NIMBUS_REPLACED_SEEDS=20 (`make faults`) for all of them.
    private var seedsPerFormat: Int { Int(ProcessInfo.processInfo.environment["NIMBUS_REPLACED_SEEDS"] ?? "") ?? 3 }

    func testAReplacedFileUnderFaultsPlaysOneVersionWholeOrFails() throws {
        try XCTSkipUnless(RcloneWebDAVServer.available, "rclone is not installed (scripts/install-deps)")
        let share = TemporaryDirectory("nimbus-share")
        let music = TemporaryDirectory("nimbus-local")
        let formats = ["flac", "mp3", "ogg"]
        let seeds = Array(1...seedsPerFormat)
        let v1 = music.file("v1.wav"), v2 = music.file("v2.wav")
        try runTool("sox", ["-n", "-r", "44100", "-c", "2", "-b", "16", v1, "synth", "10.2", "sine", "200-2000", "vol", "0.5"])
        try runTool("sox", ["-n", "-r", "44100", "-c", "2", "-b", "16", v2, "synth", "9.0", "square", "440", "sine", "3000", "vol", "0.3"])
        for format in formats {
            try encode(v1, as: format, to: music.file("ref/v1.\(format)"))
            try encode(v2, as: format, to: music.file("ref/v2.\(format)"))
            for seed in seeds { try FileManager.default.copyItem(atPath: music.file("ref/v1.\(format)"), toPath: share.file("\(seed).\(format)")) }
        }
        try FileManager.default.removeItem(atPath: v1)
        try FileManager.default.removeItem(atPath: v2)
        let server = try RcloneWebDAVServer(root: share.path, login: (user: "anna", password: "sesame"))
        let relay = try FaultRelay(targetPort: server.port)
        let secrets = TemporaryDirectory("nimbus-secrets")
        let paced = "audio_output {\n    type \"null\"\n    name \"clock\"\n}\n"
        let (daemon, capture, client) = try startCaptured(
            music: music, config: cloudConfig(url: "http://127.0.0.1:\(relay.port)/", user: "anna", password: "sesame", secrets: secrets),
            songs: formats.count * (seeds.count + 2), outputsFirst: paced, separate: true)
        XCTAssertEqual(try client.request("single 1"), ["OK"])
        func elapsed() -> Double {
            ((try? client.request("status")) ?? []).first { $0.hasPrefix("elapsed: ") }.flatMap { Double($0.dropFirst(9)) } ?? 0
        }
        /// Plays `uri` alone to the end on the capture (the paced output off): its PCM and error.
        func play(_ uri: String) throws -> (pcm: [UInt8], error: String?) {
            XCTAssertEqual(try client.request("clear"), ["OK"])
            XCTAssertEqual(try client.request("add \"\(uri)\""), ["OK"])
            let before = capture.openings.count
            XCTAssertEqual(try client.request("play 0"), ["OK"])
            XCTAssertTrue(client.waitForStatus("state: stop", timeout: 180), "\(uri) did not end")
            let error = try client.request("status").first { $0.hasPrefix("error: ") }
            XCTAssertEqual(try client.request("clearerror"), ["OK"])
            return (Array(capture.openings.dropFirst(before).joined()), error)
        }
        XCTAssertEqual(try client.request("disableoutput 0"), ["OK"])
        var reference: [String: [UInt8]] = [:]
        for format in formats {
            for version in ["v1", "v2"] { reference["\(version).\(format)"] = try play("ref/\(version).\(format)").pcm }
        }
        // Version 1 partly cached: 1.5 s heard at real time through a 20 KB/s line.
        XCTAssertEqual(try client.request("enableoutput 0"), ["OK"])
        XCTAssertEqual(try client.request("disableoutput 1"), ["OK"])
        relay.setFaults(false, seed: 0, rate: 20_000)
        for format in formats {
            for seed in seeds {
                XCTAssertEqual(try client.request("clear"), ["OK"])
                XCTAssertEqual(try client.request("add \"dav/\(seed).\(format)\""), ["OK"])
                XCTAssertEqual(try client.request("play 0"), ["OK"])
                XCTAssertTrue(waitUntil(timeout: 60) { elapsed() >= 1.5 }, "\(seed).\(format) never reached 1.5 s")
                XCTAssertEqual(try client.request("stop"), ["OK"])
            }
        }
        XCTAssertEqual(try client.request("disableoutput 0"), ["OK"])
        XCTAssertEqual(try client.request("enableoutput 1"), ["OK"])
        // Version 2 in place of each, modified 5 s after version 1, with no `update`.
        for format in formats {
            for seed in seeds {
                let path = share.file("\(seed).\(format)")
                let modified = try XCTUnwrap(FileManager.default.attributesOfItem(atPath: path)[.modificationDate] as? Date)
                try FileManager.default.copyItem(atPath: music.file("ref/v2.\(format)"), toPath: path + ".new")
                try FileManager.default.setAttributes([.modificationDate: modified.addingTimeInterval(5)], ofItemAtPath: path + ".new")
                XCTAssertEqual(rename(path + ".new", path), 0)
            }
        }
        var outcomes: [String: Int] = [:]
        for format in formats {
            for seed in seeds {
                relay.setFaults(true, seed: seed * 7919 + format.count, mix: .requests)
                let name = "\(seed).\(format)"
                let (pcm, error) = try play("dav/" + name)
                let new = reference["v2.\(format)"]!, old = reference["v1.\(format)"]!
                if let error {
                    XCTAssertTrue(pcm.isEmpty || pcm == Array(new.prefix(pcm.count)) || pcm == Array(old.prefix(pcm.count)),
                        "\(name) failed (\(error)) after \(pcm.count / 4) frames of neither version")
                    outcomes["failed", default: 0] += 1
                } else if pcm == new {
                    outcomes["version 2", default: 0] += 1
                } else if pcm == old {
                    outcomes["version 1", default: 0] += 1
                } else {
                    let common = zip(pcm, new).prefix { $0 == $1 }.count / 4
                    let older = zip(pcm, old).prefix { $0 == $1 }.count / 4
                    let tail = zip(pcm.reversed(), new.reversed()).prefix { $0 == $1 }.count / 4
                    XCTFail(
                        "\(name): \(pcm.count / 4) frames, of which the first \(common) are version 2's and \(older) version 1's, the last \(tail) version 2's end (it has \(new.count / 4), version 1 \(old.count / 4)); \(capture.openings.count) openings")
                }
            }
        }
        print("replaced files under faults: \(outcomes) over \(relay.faults) faults")
        XCTAssertGreaterThan(relay.faults, 0, "the relay did misbehave")
        XCTAssertGreaterThan(outcomes["version 2"] ?? 0, 0, "\(outcomes)")
        XCTAssertEqual(try client.request("ping"), ["OK"], daemon.log)
    }
}
