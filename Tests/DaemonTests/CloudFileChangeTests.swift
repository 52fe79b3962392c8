import Foundation
import NimbusHarness
import XCTest

/// The range cache against a WebDAV server whose files change or whose daemon dies mid-way:
/// a `kill -9` mid-download never serves a wrong byte, and a file replaced on the server is
/// fetched anew and never plays a piece of its old version.
extension CloudWebDAVTests {
    /// A kill -9 while a song is downloading: after the restart every byte the decoder gets is
    /// the source's (the FLAC plays bit-exactly: its PCM equals `flac -d` of the original).
    func testKillNineMidDownloadNeverServesWrongBytes() throws {
        try XCTSkipUnless(WebDAVServer.available, "nginx with dav-ext is not installed (scripts/install-deps)")
        let share = TemporaryDirectory("nimbus-share")
        let music = TemporaryDirectory("nimbus-local")
        // Noise: it does not compress, so the download takes seconds at the server's rate.
        try runTool("sox", ["-n", "-r", "44100", "-c", "2", "-b", "16", share.file("big.wav"), "synth", "40", "whitenoise", "vol", "0.3"])
        try runTool("flac", ["-s", "-f", "-o", share.file("big.flac"), share.file("big.wav")])
        try FileManager.default.removeItem(atPath: share.file("big.wav"))
        try runTool("flac", [
            "-s", "-d", "-f", "--force-raw-format", "--endian=little", "--sign=signed", "-o", music.file("reference.raw"),
            share.file("big.flac"),
        ])
        let reference = try Data(contentsOf: URL(fileURLWithPath: music.file("reference.raw")))
        let server = try WebDAVServer(root: share.path, rate: 1_000_000)
        let secrets = TemporaryDirectory("nimbus-secrets")
        // Paced first (the null output keeps real time), so the kill lands mid-download.
        let paced = "audio_output {\n    type \"null\"\n    name \"clock\"\n}\n"
        let (daemon, capture, firstClient) = try startCaptured(
            music: music, config: cloudConfig(server, secrets: secrets), songs: 1, outputsFirst: paced)
        var client = firstClient
        XCTAssertEqual(try client.request("add dav/big.flac"), ["OK"])
        XCTAssertEqual(try client.request("play"), ["OK"])
        // Two seconds heard at real time: the download (1 MB/s) is under way, not done.
        XCTAssertTrue(waitUntil(timeout: 20) {
            ((try? client.request("status")) ?? []).first { $0.hasPrefix("elapsed: ") }.flatMap { Double($0.dropFirst(9)) } ?? 0 > 2
        })
        daemon.stop(signal: SIGKILL)
        try daemon.restart()
        client = try daemon.connect()
        XCTAssertEqual(try client.request("stop"), ["OK"])
        XCTAssertEqual(try client.request("disableoutput 0"), ["OK"], "now as fast as it decodes")
        XCTAssertEqual(try client.request("play 0"), ["OK"])
        XCTAssertTrue(waitUntil(timeout: 60) { (try? client.request("status"))?.contains("state: stop") == true })
        XCTAssertLessThan(server.bytesSent, 2 * reference.count / 2, "the restart resumed what was cached")
        // The restored state resumed playing until that stop; what it played may stay in the
        // capture ahead of the last play, which must be the whole song, exactly.
        let captured = capture.bytes
        XCTAssertGreaterThanOrEqual(captured.count, reference.count)
        let played = Data(captured.suffix(reference.count))
        XCTAssertTrue(played == reference, "every sample decoded from the right bytes")
        XCTAssertNil(try client.request("status").first { $0.hasPrefix("error:") })
    }

    /// A file replaced on the server is fetched anew on the next play, never mixed with the
    /// bytes cached of the old one.
    func testAChangedRemoteFileIsFetchedAnew() throws {
        try XCTSkipUnless(WebDAVServer.available, "nginx with dav-ext is not installed (scripts/install-deps)")
        let share = TemporaryDirectory("nimbus-share")
        let music = TemporaryDirectory("nimbus-local")
        try AudioFixtures.writeSineWAV(to: share.file("song.wav"), frames: 88_200, frequency: 1500)
        let server = try WebDAVServer(root: share.path)
        let secrets = TemporaryDirectory("nimbus-secrets")
        let (_, capture, client) = try startCaptured(music: music, config: cloudConfig(server, secrets: secrets), songs: 1)
        XCTAssertEqual(try client.request("add dav/song.wav"), ["OK"])
        XCTAssertEqual(try client.request("play"), ["OK"])
        XCTAssertTrue(client.waitForStatus("state: stop"), "playback did not stop")
        assertContinuousSine(capture.bytes, frames: 88_200, "the first version")
        // Same name, other content and length, dated two seconds later (what the server's
        // Last-Modified shows; set rather than waited for).
        let firstDate = try modified(share.file("song.wav"))
        try AudioFixtures.writeRampWAV(to: share.file("song.wav"), frames: 66_150)
        try setModified(share.file("song.wav"), firstDate + 2)
        XCTAssertEqual(try client.request("update dav"), ["updating_db: 2", "OK"])
        XCTAssertTrue(waitUntil { (try? client.request("status"))?.contains { $0.hasPrefix("updating_db") } == false })
        XCTAssertEqual(try client.request("play"), ["OK"])
        XCTAssertTrue(client.waitForStatus("state: stop"), "playback did not stop")
        XCTAssertTrue(AudioFixtures.rampIndices(capture.bytes).elementsEqual(0..<66_150), "only the new version is heard")
    }

    /// A partly cached cloud FLAC replaced on the server (same name, no `update`): the next
    /// play lists it again, drops the stale bytes and plays the new version whole — once
    /// this crashed the daemon, and then it failed until the next update.
    func testAPartlyCachedFileReplacedOnTheServerPlaysItsNewVersion() throws {
        try XCTSkipUnless(WebDAVServer.available, "nginx with dav-ext is not installed (scripts/install-deps)")
        let share = TemporaryDirectory("nimbus-share")
        let music = TemporaryDirectory("nimbus-local")
        try runTool("sox", ["-n", "-r", "44100", "-c", "2", "-b", "16", share.file("noise.wav"), "synth", "30", "whitenoise", "vol", "0.3"])
        try runTool("flac", ["-s", "-f", "-o", share.file("song.flac"), share.file("noise.wav")])
        try FileManager.default.removeItem(atPath: share.file("noise.wav"))
        let server = try WebDAVServer(root: share.path, rate: 300_000)
        let secrets = TemporaryDirectory("nimbus-secrets")
        let paced = "audio_output {\n    type \"null\"\n    name \"clock\"\n}\n"
        // Cached bytes are confirmed again before they play once `cache_revalidate` seconds
        // have passed since the server last sent some (60 by default); 0 confirms them at every
        // play, so the replacement is met without waiting out a window on the clock.
        let (daemon, capture, client) = try startCaptured(
            music: music, config: "cache_revalidate \"0\"\n" + cloudConfig(server, secrets: secrets), songs: 1, outputsFirst: paced)
        XCTAssertEqual(try client.request("add dav/song.flac"), ["OK"])
        XCTAssertEqual(try client.request("play"), ["OK"])
        XCTAssertTrue(client.waitForElapsed(1), "the first version played a second")
        XCTAssertEqual(try client.request("stop"), ["OK"])
        // What the first version sounds like, to tell it apart in the capture.
        let oldPCM = share.file("old.raw")
        try runTool("flac", ["-s", "-d", "-f", "--force-raw-format", "--endian=little", "--sign=signed", "-o", oldPCM, share.file("song.flac")])
        let old = Array(try Data(contentsOf: URL(fileURLWithPath: oldPCM)))
        try FileManager.default.removeItem(atPath: oldPCM)
        // Another file under the same name, dated two seconds later: a ramp, so every frame is known.
        let firstDate = try modified(share.file("song.flac"))
        let wav = share.file("ramp.wav")
        try AudioFixtures.writeRampWAV(to: wav, frames: 88_200)
        try runTool("flac", ["-s", "-f", "-o", share.file("song.flac"), wav])
        try setModified(share.file("song.flac"), firstDate + 2)
        try FileManager.default.removeItem(atPath: wav)
        XCTAssertEqual(try client.request("disableoutput 0"), ["OK"])
        XCTAssertEqual(try client.request("play"), ["OK"])
        XCTAssertTrue(client.waitForStatus("state: stop", timeout: 60), "playback did not end")
        XCTAssertEqual(try client.request("ping"), ["OK"], "the daemon is alive")
        // The capture holds the first play (the old version from its start, once) and then the
        // new version, whole: not a sample of the old one in the second play.
        let bytes = capture.bytes
        let firstPlay = bytes.count - 88_200 * 4
        XCTAssertGreaterThan(firstPlay, 0)
        XCTAssertTrue(AudioFixtures.rampIndices(Array(bytes[max(0, firstPlay)...])).elementsEqual(0..<88_200), "the new version, whole")
        XCTAssertTrue(firstPlay <= old.count && bytes[..<max(0, firstPlay)].elementsEqual(old[..<max(0, firstPlay)]),
            "before it, only the first play of the old version")
        XCTAssertNil(try client.request("status").first { $0.hasPrefix("error:") }, "no error for a file that only changed")
        XCTAssertTrue(daemon.log.contains("changed on the server; playing the new version"), daemon.log)
    }

    /// Songs whose old version's head and index are cached (from indexing), replaced on the
    /// server (new length, no `update`) and played through a relay that answers 503, cuts,
    /// stalls and throttles connections as a seed decides: each play is the new version
    /// sample for sample — the same PCM as a local copy of it — or fails with an error,
    /// never a piece of the old version followed by the new one.
    func testReplacedFilesUnderFaultsPlayTheirNewVersionOrFail() throws {
        try XCTSkipUnless(WebDAVServer.available, "nginx with dav-ext is not installed (scripts/install-deps)")
        let share = TemporaryDirectory("nimbus-share")
        let music = TemporaryDirectory("nimbus-local")
        let seeds = [11, 23, 37, 53]
        let formats = ["flac", "mp3", "ogg"]
        let old = share.file("old.wav"), new = music.file("new.wav")
        try runTool("sox", ["-n", "-r", "44100", "-c", "2", "-b", "16", old, "synth", "20", "whitenoise", "vol", "0.3"])
        try runTool("sox", ["-n", "-r", "44100", "-c", "2", "-b", "16", new, "synth", "4", "sine", "300-900", "sine", "1200", "vol", "0.4"])
        for seed in seeds {
            for format in formats {
                try encode(old, as: format, to: share.file("\(seed).\(format)"))
                try encode(new, as: format, to: music.file("ref/\(seed).\(format)"))
            }
        }
        try FileManager.default.removeItem(atPath: old)
        try FileManager.default.removeItem(atPath: new)
        let server = try WebDAVServer(root: share.path)
        let relay = try FaultRelay(targetPort: server.port)
        let secrets = TemporaryDirectory("nimbus-secrets")
        let url = "http://127.0.0.1:\(relay.port)/dav/"
        let songs = seeds.count * formats.count
        let (_, capture, client) = try startCaptured(
            music: music, config: "cache_revalidate \"1\"\n" + cloudConfig(url: url, user: server.user, password: server.password, secrets: secrets),
            songs: 2 * songs, separate: true)
        XCTAssertEqual(try client.request("single 1"), ["OK"])
        /// Plays `uri` alone: what it added to the capture, and its error.
        func play(_ uri: String) throws -> (pcm: [UInt8], error: String?) {
            XCTAssertEqual(try client.request("clear"), ["OK"])
            XCTAssertEqual(try client.request("add \"\(uri)\""), ["OK"])
            let before = capture.openings.count
            XCTAssertEqual(try client.request("play 0"), ["OK"])
            XCTAssertTrue(client.waitForStatus("state: stop", timeout: 90), "\(uri) did not end")
            let error = try client.request("status").first { $0.hasPrefix("error: ") }
            XCTAssertEqual(try client.request("clearerror"), ["OK"])
            return (Array(capture.openings.dropFirst(before).joined()), error)
        }
        var reference: [String: [UInt8]] = [:]
        for seed in seeds {
            for format in formats { reference["\(seed).\(format)"] = try play("ref/\(seed).\(format)").pcm }
        }
        // The new versions, each a different length from the old one, a second after the
        // listing: the cached heads are no longer confirmed by then.
        Thread.sleep(forTimeInterval: 1.1)
        for name in reference.keys { try FileManager.default.copyItem(atPath: music.file("ref/" + name), toPath: share.file(name + ".new")) }
        for name in reference.keys { XCTAssertEqual(rename(share.file(name + ".new"), share.file(name)), 0) }
        var played = 0
        for seed in seeds {
            relay.setFaults(true, seed: seed)
            for format in formats {
                let name = "\(seed).\(format)"
                let (pcm, error) = try play("dav/" + name)
                XCTAssertFalse(reference[name]!.isEmpty, name)
                if let error {
                    XCTAssertTrue(pcm.isEmpty || pcm == Array(reference[name]!.prefix(pcm.count)), "\(name) failed (\(error)) after a piece of something else")
                } else {
                    XCTAssertTrue(pcm == reference[name]!, "\(name): \(pcm.count / 4) frames where the new version has \(reference[name]!.count / 4)")
                    played += 1
                }
            }
        }
        XCTAssertGreaterThan(relay.faults, 0, "the relay did misbehave")
        XCTAssertGreaterThanOrEqual(played, songs / 2, "most songs play their new version despite the faults")
    }

    func encode(_ wav: String, as format: String, to path: String) throws {
        try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        switch format {
        case "flac": try runTool("flac", ["-s", "-f", "-o", path, wav])
        case "mp3": try runTool("lame", ["--quiet", "-b", "320", wav, path])
        default: try runTool("oggenc", ["-Q", "-q", "8", "-o", path, wav])
        }
    }
}

/// A file's modification time, and setting it, so a replaced file is dated later without
/// waiting for the clock to move on.
private func modified(_ path: String) throws -> Date {
    try XCTUnwrap(try FileManager.default.attributesOfItem(atPath: path)[.modificationDate] as? Date)
}

private func setModified(_ path: String, _ date: Date) throws {
    try FileManager.default.setAttributes([.modificationDate: date], ofItemAtPath: path)
}
