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
        // Same name, other content and length, a second later.
        Thread.sleep(forTimeInterval: 1.1)
        try AudioFixtures.writeRampWAV(to: share.file("song.wav"), frames: 66_150)
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
        // Cached bytes are confirmed again before they play once a second has passed since the
        // server last sent some (60 s by default); the replacement comes later than that.
        let (daemon, capture, client) = try startCaptured(
            music: music, config: "cache_revalidate \"1\"\n" + cloudConfig(server, secrets: secrets), songs: 1, outputsFirst: paced)
        XCTAssertEqual(try client.request("add dav/song.flac"), ["OK"])
        XCTAssertEqual(try client.request("play"), ["OK"])
        Thread.sleep(forTimeInterval: 1)
        XCTAssertEqual(try client.request("stop"), ["OK"])
        // What the first version sounds like, to tell it apart in the capture.
        let oldPCM = share.file("old.raw")
        try runTool("flac", ["-s", "-d", "-f", "--force-raw-format", "--endian=little", "--sign=signed", "-o", oldPCM, share.file("song.flac")])
        let old = Array(try Data(contentsOf: URL(fileURLWithPath: oldPCM)))
        try FileManager.default.removeItem(atPath: oldPCM)
        // Another file under the same name, a second later: a ramp, so every frame is known.
        Thread.sleep(forTimeInterval: 1.1)
        let wav = share.file("ramp.wav")
        try AudioFixtures.writeRampWAV(to: wav, frames: 88_200)
        try runTool("flac", ["-s", "-f", "-o", share.file("song.flac"), wav])
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
}
