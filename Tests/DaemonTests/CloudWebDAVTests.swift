import Foundation
import NimbusHarness
import XCTest

/// Cloud songs from a real WebDAV server (Debian's nginx with dav-ext, started here) mounted
/// into the library: indexing by ranges, playback through the range cache, replay and
/// restart without the network.
final class CloudWebDAVTests: XCTestCase {
    var keep: [AnyObject] = []

    override func tearDown() {
        keep.removeAll()
        super.tearDown()
    }

    /// Ninety-second songs with tags (a real library's are longer still): reading only their
    /// tags is a small part of them.
    func makeCloudLibrary() throws -> TemporaryDirectory {
        let share = TemporaryDirectory("nimbus-share")
        try FileManager.default.createDirectory(atPath: share.file("Cloud Band/Sky"), withIntermediateDirectories: true)
        let wav = share.file("source.wav")
        try runTool("sox", ["-n", "-r", "44100", "-c", "2", "-b", "16", wav, "synth", "90", "pinknoise", "vol", "0.4"])
        try runTool("flac", [
            "-s", "-f", "-T", "ARTIST=Cloud Band", "-T", "ALBUM=Sky", "-T", "TITLE=Cirrus", "-T", "TRACKNUMBER=1",
            "-o", share.file("Cloud Band/Sky/01 - Cirrus.flac"), wav,
        ])
        try runTool("lame", [
            "--quiet", "-b", "192", "--ta", "Cloud Band", "--tl", "Sky", "--tt", "Stratus", "--tn", "2", wav,
            share.file("Cloud Band/Sky/02 - Stratus.mp3"),
        ])
        try runTool("oggenc", [
            "-Q", "-q", "5", "-a", "Cloud Band", "-l", "Sky", "-t", "Nimbus", "-N", "3", "-o",
            share.file("Cloud Band/Sky/03 - Nimbus.ogg"), wav,
        ])
        try FileManager.default.removeItem(atPath: wav)
        return share
    }

    func totalBytes(_ directory: String) -> Int {
        let files = FileManager.default.enumerator(atPath: directory)?.compactMap { $0 as? String } ?? []
        return files.reduce(0) { total, name in
            total + ((try? FileManager.default.attributesOfItem(atPath: directory + "/" + name)[.size] as? Int) ?? 0)
        }
    }

    func cloudConfig(_ server: WebDAVServer, secrets: TemporaryDirectory) -> String {
        cloudConfig(url: server.url, user: server.user, password: server.password, secrets: secrets)
    }

    func cloudConfig(url: String, user: String, password: String, secrets: TemporaryDirectory) -> String {
        let passwordFile = secrets.write("dav.password", password + "\n")
        return """
            cloud {
                name "dav"
                type "webdav"
                url "\(url)"
                user "\(user)"
                password_file "\(passwordFile)"
            }
            """
    }

    /// .m4a files as ffmpeg writes them, with the `moov` index after the audio, and .opus
    /// files: indexed from a head probe and a tail read through the range cache, never
    /// downloaded whole.
    func testCloudM4AWithTheIndexAtTheEndAndOpusAreIndexedCheaply() throws {
        try XCTSkipUnless(WebDAVServer.available, "nginx with dav-ext is not installed (scripts/install-deps)")
        let share = TemporaryDirectory("nimbus-share")
        let wav = share.file("source.wav")
        try runTool("sox", ["-n", "-r", "44100", "-c", "2", "-b", "16", wav, "synth", "40", "pinknoise", "vol", "0.4"])
        // Three 40 s AAC files of about 1.1 MB and one ALAC, as a phone's library has them.
        for index in 1...4 {
            try runTool("ffmpeg", [
                "-hide_banner", "-loglevel", "error", "-y", "-i", wav, "-c:a", index == 2 ? "alac" : "aac", "-b:a", "220k",
                "-metadata", "title=Track \(index)", share.file("\(index).m4a"),
            ])
        }
        try runTool("opusenc", ["--quiet", "--title", "Track 5", wav, share.file("5.opus")])
        try FileManager.default.removeItem(atPath: wav)
        let server = try WebDAVServer(root: share.path)
        let secrets = TemporaryDirectory("nimbus-secrets")
        let daemon = try ServerProcess(.nimbus, config: cloudConfig(server, secrets: secrets))
        try daemon.waitForDatabase(songs: 5)
        XCTAssertTrue(try daemon.connect().request("find title \"Track 5\"").contains("Format: 48000:16:2"))
        let found = try daemon.connect().request("find title \"Track 2\"")
        XCTAssertEqual(found.first, "file: dav/2.m4a")
        XCTAssertTrue(found.contains("Format: 44100:16:2") && found.contains("Time: 40"), "\(found)")
        let total = totalBytes(share.path)
        XCTAssertLessThanOrEqual(Double(server.bytesSent), Double(total) * 0.05, "indexing moved \(server.bytesSent) of \(total) bytes")
        // The AAC files alone: a head probe and the tail holding `moov` (about 3%).
        var aacSent = 0, aacSize = 0
        for index in [1, 3, 4] {
            aacSize += try XCTUnwrap(FileManager.default.attributesOfItem(atPath: share.file("\(index).m4a"))[.size] as? Int)
            aacSent += server.requests.filter { $0.hasPrefix("GET ") && $0.hasSuffix("/dav/\(index).m4a") }
                .reduce(0) { $0 + (Int($1.split(separator: " ")[2]) ?? 0) }
        }
        XCTAssertLessThanOrEqual(Double(aacSent), Double(aacSize) * 0.05, "indexing the AAC files moved \(aacSent) of \(aacSize) bytes")
    }

    func testACloudAccountIsIndexedFromRangesAndBrowsedLikeLocalMusic() throws {
        try XCTSkipUnless(WebDAVServer.available, "nginx with dav-ext is not installed (scripts/install-deps)")
        let share = try makeCloudLibrary()
        let server = try WebDAVServer(root: share.path)
        let secrets = TemporaryDirectory("nimbus-secrets")
        let daemon = try ServerProcess(.nimbus, config: cloudConfig(server, secrets: secrets))
        try daemon.waitForDatabase(songs: 3)
        let client = try daemon.connect()
        XCTAssertEqual(try client.request("lsinfo"), ["directory: dav", "Last-Modified: 1970-01-01T00:00:00Z", "OK"])
        XCTAssertEqual(try client.request("list album artist \"Cloud Band\""), ["Album: Sky", "OK"])
        let found = try client.request("find title Stratus")
        XCTAssertEqual(found.first, "file: dav/Cloud Band/Sky/02 - Stratus.mp3")
        XCTAssertTrue(found.contains("Time: 90"), "\(found)")
        let files = try client.request("listfiles \"dav/Cloud Band/Sky\"")
        XCTAssertEqual(files.filter { $0.hasPrefix("file: ") }.sorted(), [
            "file: 01 - Cirrus.flac", "file: 02 - Stratus.mp3", "file: 03 - Nimbus.ogg",
        ])
        let size = try FileManager.default.attributesOfItem(atPath: share.file("Cloud Band/Sky/02 - Stratus.mp3"))[.size] as? Int
        XCTAssertTrue(files.contains("size: \(size ?? -1)"), "\(files)")
        XCTAssertEqual(
            try client.request("listfiles dav/nowhere"), ["ACK [52@0] {listfiles} Failed to open dav/nowhere: No such file or directory"])
        let sent = server.bytesSent
        let total = totalBytes(share.path)
        XCTAssertLessThanOrEqual(Double(sent), Double(total) * 0.05, "indexing moved \(sent) of \(total) bytes: \(server.requests)")
        XCTAssertEqual(daemon.stop(), 0)
        XCTAssertTrue(daemon.log.contains("traffic: dav: indexing "), "the log tells what the account cost: \(daemon.log)")
        XCTAssertFalse(daemon.log.contains(server.password), "the password never reaches the log")
    }

    /// A share with one FLAC that continues a local WAV, and another that it is followed by.
    func gaplessSetup() throws -> (music: TemporaryDirectory, share: TemporaryDirectory) {
        let music = TemporaryDirectory("nimbus-local")
        let share = TemporaryDirectory("nimbus-share")
        try AudioFixtures.writeSineWAV(to: music.file("a.wav"), frames: 50_000, frequency: 1500)
        try AudioFixtures.writeSineWAV(to: share.file("b.wav"), frames: 441_000, firstFrame: 50_000, frequency: 1500)
        try runTool("flac", ["-s", "-f", "-o", share.file("b.flac"), share.file("b.wav")])
        try FileManager.default.removeItem(atPath: share.file("b.wav"))
        try AudioFixtures.writeSineWAV(to: music.file("c.wav"), frames: 30_000, firstFrame: 491_000, frequency: 1500)
        return (music, share)
    }

    /// A daemon playing into the ALSA capture (after `outputsFirst`, if any), with `config` (a
    /// cloud account) added.
    func startCaptured(music: TemporaryDirectory, config: String, songs: Int, outputsFirst: String = "", separate: Bool = false) throws
        -> (ServerProcess, ALSACapture, LineClient)
    {
        let capture = ALSACapture(in: music, separate: separate)
        let daemon = try ServerProcess(
            .nimbus, config: outputsFirst + ALSACapture.outputBlock() + "\n" + config, musicDirectory: music.path, nullOutput: false,
            environment: capture.environment)
        keep.append(daemon)
        try daemon.waitForDatabase(songs: songs)
        return (daemon, capture, try daemon.connect())
    }

    func assertContinuousSine(_ bytes: [UInt8], frames: Int, _ message: String) {
        let left = AudioFixtures.leftChannel(bytes)
        XCTAssertEqual(left.count, frames, "\(message): every frame once")
        for (index, sample) in left.enumerated()
        where abs(Double(sample) - AudioFixtures.sineSample(frame: index, frequency: 1500, amplitude: 0.5)) > 1 {
            return XCTFail("\(message): frame \(index) is \(sample)")
        }
    }

    func testLocalCloudLocalPlaysGaplesslyAndReplaysWithoutTheNetwork() throws {
        try XCTSkipUnless(WebDAVServer.available, "nginx with dav-ext is not installed (scripts/install-deps)")
        let (music, share) = try gaplessSetup()
        let server = try WebDAVServer(root: share.path)
        let secrets = TemporaryDirectory("nimbus-secrets")
        let (daemon, capture, client) = try startCaptured(music: music, config: cloudConfig(server, secrets: secrets), songs: 3)
        for command in ["add a.wav", "add dav/b.flac", "add c.wav", "play"] {
            XCTAssertEqual(try client.request(command), ["OK"], command)
        }
        XCTAssertTrue(client.waitForStatus("state: stop"), "playback did not stop")
        assertContinuousSine(capture.bytes, frames: 521_000, "local → cloud → local")
        let firstPlay = server.bytesSent

        // Replaying moves no bytes: everything comes from the cache.
        XCTAssertEqual(try client.request("play 1"), ["OK"])
        XCTAssertTrue(client.waitForStatus("state: stop"), "playback did not stop")
        XCTAssertEqual(server.bytesSent, firstPlay, "a replay of a cached song transfers 0 bytes")

        // A stored playlist mixing both survives a restart.
        XCTAssertEqual(try client.request("save mixed"), ["OK"])
        try daemon.restart()
        let again = try daemon.connect()
        XCTAssertEqual(
            try again.request("listplaylist mixed"), ["file: a.wav", "file: dav/b.flac", "file: c.wav", "OK"])
    }

    func testCachedSongsPlayWithTheServerGone() throws {
        try XCTSkipUnless(WebDAVServer.available, "nginx with dav-ext is not installed (scripts/install-deps)")
        let (music, share) = try gaplessSetup()
        var server: WebDAVServer? = try WebDAVServer(root: share.path)
        let secrets = TemporaryDirectory("nimbus-secrets")
        let (daemon, capture, firstClient) = try startCaptured(music: music, config: cloudConfig(server!, secrets: secrets), songs: 3)
        var client = firstClient
        for command in ["add a.wav", "add dav/b.flac", "add c.wav", "play"] {
            XCTAssertEqual(try client.request(command), ["OK"], command)
        }
        XCTAssertTrue(client.waitForStatus("state: stop"), "playback did not stop")
        server = nil
        try daemon.restart()
        client = try daemon.connect()
        XCTAssertEqual(try client.request("play"), ["OK"])
        XCTAssertTrue(client.waitForStatus("state: stop"), "playback did not stop")
        assertContinuousSine(capture.bytes, frames: 521_000, "offline, from the cache")
        XCTAssertEqual(try client.request("update dav"), ["updating_db: 1", "OK"])
        // An account out of reach is a state of the account, not a `status` error.
        XCTAssertTrue(waitUntil { (try? client.request("listaccounts"))?.contains("state: unreachable") == true })
        XCTAssertNil(try client.request("status").first { $0.hasPrefix("error:") })
        XCTAssertTrue(try client.request("stats").contains("songs: 3"), "an unreachable account keeps its songs")
    }

    /// Digest authentication, from Apache's mod_dav with mod_auth_digest (nginx has no Digest):
    /// the share is indexed and its song plays between two local ones without a gap.
    func testDigestAuthenticationAgainstApache() throws {
        try XCTSkipUnless(ApacheWebDAVServer.available, "apache2 is not installed (scripts/install-deps)")
        let (music, share) = try gaplessSetup()
        let server = try ApacheWebDAVServer(root: share.path)
        let secrets = TemporaryDirectory("nimbus-secrets")
        let config = cloudConfig(url: server.url, user: server.user, password: server.password, secrets: secrets)
        let (daemon, capture, client) = try startCaptured(music: music, config: config, songs: 3)
        XCTAssertEqual(try client.request("lsinfo dav").first, "file: dav/b.flac")
        for command in ["add a.wav", "add dav/b.flac", "add c.wav", "play"] {
            XCTAssertEqual(try client.request(command), ["OK"], command)
        }
        XCTAssertTrue(client.waitForStatus("state: stop"), "playback did not stop")
        assertContinuousSine(capture.bytes, frames: 521_000, "through Digest authentication")
        let requests = server.requests
        XCTAssertTrue(requests.contains { $0.hasPrefix("PROPFIND 401") }, "the server asked for Digest: \(requests)")
        XCTAssertTrue(requests.contains { $0.hasPrefix("PROPFIND 207") }, "\(requests)")
        XCTAssertTrue(requests.contains { $0.hasPrefix("GET 206") }, "ranged reads: \(requests)")
        XCTAssertFalse(daemon.log.contains(server.password), "the password never reaches the log")
    }

    /// Covers of cloud songs come through the cache like their audio; reading one from a slow
    /// server happens off the core loop, so other clients are answered meanwhile.
    func testCloudAlbumArtNeverHoldsUpOtherClients() throws {
        try XCTSkipUnless(WebDAVServer.available, "nginx with dav-ext is not installed (scripts/install-deps)")
        let (music, share) = try gaplessSetup()
        // 48 KiB of cover at 16 kB/s: about three seconds on the wire.
        let cover = (0..<49_152).map { UInt8(truncatingIfNeeded: $0 &* 2_654_435_761 >> 13) }
        XCTAssertTrue(FileManager.default.createFile(atPath: share.file("cover.jpg"), contents: Data(cover)))
        try FileManager.default.createDirectory(atPath: share.file("bare"), withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: share.file("b.flac"), toPath: share.file("bare/d.flac"))
        let server = try WebDAVServer(root: share.path, rate: 16_000)
        let secrets = TemporaryDirectory("nimbus-secrets")
        let daemon = try ServerProcess(.nimbus, config: cloudConfig(server, secrets: secrets), musicDirectory: music.path)
        keep.append(daemon)
        try daemon.waitForDatabase(songs: 4)
        let asking = try daemon.connect()
        let other = try daemon.connect()
        XCTAssertEqual(try asking.request("binarylimit 65536"), ["OK"])
        try asking.send("albumart dav/b.flac 0\nping\n")
        // The cover is on its way (slowly) from the server when the other client asks.
        XCTAssertTrue(waitUntil { TCPConnections.established(toPort: server.port) >= 1 })
        XCTAssertEqual(try other.request("ping"), ["OK"])
        XCTAssertTrue(try other.request("status").contains("state: stop"))
        // Answered while the cover is still on its way (49 KB at 16 KB/s): the core loop did not wait for it.
        XCTAssertTrue(try asking.isQuiet(for: 0), "the core loop is not waiting for the cover")
        XCTAssertEqual(try asking.readLine(), "size: 49152")
        XCTAssertEqual(try asking.readLine(), "binary: 49152")
        XCTAssertEqual(try asking.readBytes(49_152), cover)
        XCTAssertEqual(try asking.readResponse(), ["", "OK"])
        XCTAssertEqual(try asking.readResponse(), ["OK"], "the pipelined ping is answered after the cover")
        // Again from the cache, and a missing cover costs no request to the server.
        let requests = server.requests.count
        try asking.send("albumart dav/b.flac 49000\n")
        XCTAssertEqual(try asking.readLine(), "size: 49152")
        XCTAssertEqual(try asking.readLine(), "binary: 152")
        XCTAssertEqual(try asking.readBytes(152), Array(cover.suffix(152)))
        XCTAssertEqual(try asking.readResponse(), ["", "OK"])
        XCTAssertEqual(try other.request("albumart dav/bare/d.flac 0"), ["ACK [50@0] {albumart} No file exists"])
        try other.send("command_list_ok_begin\nping\nalbumart dav/bare/d.flac 0\nping\ncommand_list_end\n")
        XCTAssertEqual(try other.readResponse(), ["list_OK", "ACK [50@1] {albumart} No file exists"], "in a list it runs in place")
        XCTAssertEqual(server.requests.count, requests, "\(server.requests.suffix(3))")
    }

    /// A server that cannot be reached at all is not waited for as long as one that dropped a
    /// connection: after ten seconds the song fails with the account named in `error:`, and
    /// the queue goes on with the next song, as with MPD.
    func testAnUnreachableServerFailsTheSongAndPlaybackGoesOn() throws {
        try XCTSkipUnless(WebDAVServer.available, "nginx with dav-ext is not installed (scripts/install-deps)")
        let (music, share) = try gaplessSetup()
        var server: WebDAVServer? = try WebDAVServer(root: share.path)
        let secrets = TemporaryDirectory("nimbus-secrets")
        let daemon = try ServerProcess(.nimbus, config: cloudConfig(server!, secrets: secrets), musicDirectory: music.path)
        keep.append(daemon)
        try daemon.waitForDatabase(songs: 3)
        server = nil
        let client = try daemon.connect()
        for command in ["add dav/b.flac", "add c.wav", "play"] {
            XCTAssertEqual(try client.request(command), ["OK"], command)
        }
        XCTAssertTrue(waitUntil(timeout: 90) { (try? client.request("status"))?.contains("song: 1") == true })
        let status = try client.request("status")
        XCTAssertTrue(status.contains { $0.hasPrefix("error: Failed to decode dav/b.flac: dav: ") }, "\(status)")
        // Ten seconds of attempts, not a minute: what the fetch did, from its own log line.
        let failure = try XCTUnwrap(FetchFailure(in: daemon.log), "the log names the account: \(daemon.log)")
        XCTAssertTrue(failure.reason.hasPrefix("past the 10 s deadline for a server out of reach: dav: "), failure.reason)
        XCTAssertLessThanOrEqual(failure.requests, 8, "retries backing off from 0.25 s to 4 s within ten seconds")
    }

    /// A player waiting for bytes from a server that went away still obeys at once: a seek
    /// back into what is cached plays, the next song starts, `stop` stops — none of them
    /// waits out the minute a fetch keeps retrying.
    func testCommandsReachAPlayerWaitingOnAServerThatWentAway() throws {
        try XCTSkipUnless(WebDAVServer.available, "nginx with dav-ext is not installed (scripts/install-deps)")
        let (music, share) = try gaplessSetup()
        // 16 kB/s is half of what the FLAC needs: the decoder waits on the network.
        var server: WebDAVServer? = try WebDAVServer(root: share.path, rate: 16_000)
        let secrets = TemporaryDirectory("nimbus-secrets")
        let daemon = try ServerProcess(.nimbus, config: cloudConfig(server!, secrets: secrets), musicDirectory: music.path)
        keep.append(daemon)
        try daemon.waitForDatabase(songs: 3)
        let client = try daemon.connect()
        for command in ["add dav/b.flac", "add a.wav", "play 0"] {
            XCTAssertEqual(try client.request(command), ["OK"], command)
        }
        func playing(_ song: Int, beyond seconds: Double) -> Bool {
            guard let status = try? client.request("status"), status.contains("song: \(song)"),
                let elapsed = status.first(where: { $0.hasPrefix("elapsed: ") }).flatMap({ Double($0.dropFirst(9)) })
            else { return false }
            return elapsed > seconds
        }
        XCTAssertTrue(waitUntil(timeout: 20) { playing(0, beyond: 1) })
        let port = server!.port
        server = nil
        XCTAssertTrue(waitUntil { !TCPConnections.isListening(port) && TCPConnections.established(toPort: port) == 0 })

        // Each command takes effect while the player still waits on the gone server: had it
        // waited for the server instead, the song would have failed (its 10 s deadline) first.
        func noError() -> Bool { (try? client.request("status"))?.contains { $0.hasPrefix("error:") } == false }
        XCTAssertEqual(try client.request("seekcur 0"), ["OK"])
        XCTAssertTrue(waitUntil(timeout: 30) { playing(0, beyond: 0.2) }, "the cached start plays again")
        XCTAssertTrue(noError(), "the seek was taken without waiting for the server")
        // It plays from the cache until it needs what the gone server never sent.
        XCTAssertTrue(waitUntil(timeout: 10) { playing(0, beyond: 1) })

        XCTAssertEqual(try client.request("play 1"), ["OK"])
        XCTAssertTrue(waitUntil(timeout: 30) { playing(1, beyond: 0.1) }, "the local song starts")
        XCTAssertNil(try client.request("status").first { $0.hasPrefix("error:") }, "an interrupted wait is no error")

        XCTAssertEqual(try client.request("play 0"), ["OK"])
        XCTAssertTrue(waitUntil(timeout: 10) { playing(0, beyond: 1) })
        XCTAssertEqual(try client.request("stop"), ["OK"])
        XCTAssertTrue(try client.request("status").contains("state: stop"))
        XCTAssertEqual(try client.request("play 1"), ["OK"])
        XCTAssertTrue(waitUntil(timeout: 30) { playing(1, beyond: 0.1) })
        XCTAssertTrue(noError(), "stop broke the wait: no error for the cloud song")
    }
}

/// The range cache's log line for a fetch it gave up on: how many requests it made and why it
/// stopped (`… fetch failed after 6 requests in 11.3 s, past the 10 s deadline …: ACCOUNT: …`).
/// Tests read what the daemon did from it instead of timing the failure on a busy machine.
struct FetchFailure {
    let requests: Int
    let reason: String

    init?(in log: String) {
        guard let line = log.split(separator: "\n").last(where: { $0.contains(" fetch failed after ") }),
            let match = line.firstMatch(of: /fetch failed after (\d+) requests? in [\d.]+ s, (.*)$/), let count = Int(match.1)
        else { return nil }
        requests = count
        reason = String(match.2)
    }
}
