import Foundation
import NimbusHarness
import XCTest

/// Offline pins at run time, end to end against the real WebDAV server and the provider
/// emulators: whole folders kept on disk and played with the server gone, songs a later
/// update adds, kill -9 in the middle, pause and resume counted at the server, a pin that
/// does not fit, a full disk, a signed-out account, and clients that never asked for
/// progress events never getting them.
final class OfflineTests: XCTestCase {
    private var keep: [AnyObject] = []

    override func tearDown() {
        keep.removeAll()
        super.tearDown()
    }

    /// Lossless ramp songs (every frame says its index): `frames` each, under `folder`.
    private func share(_ songs: [String: Int], wav: Bool = false) throws -> TemporaryDirectory {
        let share = TemporaryDirectory("nimbus-offline-share")
        for (path, frames) in songs {
            try FileManager.default.createDirectory(atPath: share.file((path as NSString).deletingLastPathComponent), withIntermediateDirectories: true)
            try addSong(path, frames: frames, to: share)
        }
        return share
    }

    private func addSong(_ path: String, frames: Int, to share: TemporaryDirectory) throws {
        if path.hasSuffix(".wav") { return try AudioFixtures.writeRampWAV(to: share.file(path), frames: frames) }
        let wav = share.file(path + ".wav")
        try AudioFixtures.writeRampWAV(to: wav, frames: frames)
        try runTool("flac", ["-s", "-f", "-o", share.file(path), wav])
        try FileManager.default.removeItem(atPath: wav)
    }

    private func daemon(_ config: String, songs: Int, capture: Bool = false, music: TemporaryDirectory? = nil) throws
        -> (ServerProcess, ALSACapture?, LineClient)
    {
        let music = music ?? TemporaryDirectory("nimbus-offline-music")
        let alsa = capture ? ALSACapture(in: music) : nil
        let daemon = try ServerProcess(
            .nimbus, config: (capture ? ALSACapture.outputBlock() + "\n" : "") + config, musicDirectory: music.path,
            nullOutput: !capture, environment: alsa?.environment ?? [:])
        keep += [music, daemon]
        try daemon.waitForDatabase(songs: songs)
        return (daemon, alsa, try daemon.connect())
    }

    private func webDAVConfig(_ server: WebDAVServer) -> String {
        let secrets = TemporaryDirectory("nimbus-secrets")
        keep.append(secrets)
        return """
            cloud {
                name "dav"
                type "webdav"
                url "\(server.url)"
                user "\(server.user)"
                password_file "\(secrets.write("dav.password", server.password + "\n"))"
            }
            """
    }

    /// `listpins` as one dictionary per pin, by name.
    private func pins(_ client: LineClient) throws -> [String: [String: String]] {
        var pins: [String: [String: String]] = [:]
        var current: String?
        for line in try client.request("listpins").dropLast() {
            guard let colon = line.range(of: ": ") else { continue }
            let (key, value) = (String(line[..<colon.lowerBound]), String(line[colon.upperBound...]))
            if key == "pin" { current = value }
            if let current { pins[current, default: [:]][key] = value }
        }
        return pins
    }

    private func waitForPin(_ client: LineClient, _ name: String, state: String, timeout: Double = 30) -> [String: String]? {
        var last: [String: String]?
        let reached = waitUntil(timeout: timeout) {
            last = (try? pins(client))?[name]
            return last?["state"] == state
        }
        if !reached { XCTFail("\(name) never reached \(state): \(last ?? [:])") }
        return last
    }

    private func play(_ client: LineClient, _ uri: String, capture: ALSACapture, frames: Int, _ message: String) {
        for command in ["clear", "add \"\(uri)\"", "play"] { XCTAssertEqual(try client.request(command), ["OK"], command) }
        XCTAssertTrue(client.waitForStatus("state: stop", timeout: 30), "playback did not stop")
        XCTAssertEqual(AudioFixtures.rampIndices(capture.bytes), Array(0..<frames), "\(message): every sample exact")
    }

    private func nimbus(_ arguments: [String], daemon: ServerProcess) throws -> String {
        try runTool(
            ServerProcess.buildDirectory + "/nimbus", arguments + ["--config", daemon.configPath, "--port", "\(daemon.port)"],
            environment: ["MPD_HOST": "127.0.0.1"], includingErrors: true)
    }

    func testAPinnedFolderIsKeptWholeFollowsUpdatesAndPlaysWithTheServerGone() throws {
        try XCTSkipUnless(WebDAVServer.available, "nginx with dav-ext is not installed (scripts/install-deps)")
        let files = try share(["Album/01.flac": 88_200, "Album/02.flac": 66_150, "Other/x.flac": 44_100])
        var server: WebDAVServer? = try WebDAVServer(root: files.path)
        let (daemon, capture, client) = try daemon(webDAVConfig(server!), songs: 3, capture: true)
        XCTAssertEqual(try client.request("pin dav/Album/"), ["OK"])
        XCTAssertEqual(try client.request("pin dav/Album"), ["OK"], "pinning twice changes nothing")
        let done = waitForPin(client, "dav/Album", state: "completed")
        XCTAssertEqual(done?["songs"], "2")
        XCTAssertEqual(done?["completed"], "2")
        XCTAssertEqual(done?["done"], done?["bytes"])
        let status = try client.request("pinstatus dav/Album")
        XCTAssertEqual(status.filter { $0.hasPrefix("file: ") }, ["file: dav/Album/01.flac", "file: dav/Album/02.flac"])
        XCTAssertEqual(status.filter { $0 == "state: completed" }.count, 2, "\(status)")
        XCTAssertTrue(try nimbus(["offline", "list"], daemon: daemon).contains("dav/Album (folder): completed 2/2 songs"))

        // A song added on the server under the pinned folder is fetched after `update`.
        try addSong("Album/03.flac", frames: 22_050, to: files)
        XCTAssertEqual(try client.request("update dav").last, "OK")
        let grown = waitUntil(timeout: 30) { (try? self.pins(client))?["dav/Album"]?["completed"] == "3" }
        XCTAssertTrue(grown, "\((try? pins(client)) ?? [:])")

        // Without the server, after a restart: still complete, and every sample plays.
        server = nil
        try daemon.restart()
        let again = try daemon.connect()
        XCTAssertEqual(waitForPin(again, "dav/Album", state: "completed")?["completed"], "3", "the pin survived the restart")
        play(again, "dav/Album/03.flac", capture: capture!, frames: 22_050, "a song the update added, offline")
        play(again, "dav/Album/01.flac", capture: capture!, frames: 88_200, "offline")
        XCTAssertEqual(try again.request("unpin dav/Album"), ["OK"])
        XCTAssertEqual(try pins(again), [:])
    }

    /// A pinned folder holding a CUE sheet keeps its image (the tracks are parts of it).
    func testAPinnedCueAlbumKeepsItsImage() throws {
        try XCTSkipUnless(WebDAVServer.available, "nginx with dav-ext is not installed (scripts/install-deps)")
        let files = try share(["Cue/image.flac": 88_200])
        _ = files.write("Cue/image.cue", "FILE \"image.flac\" WAVE\n TRACK 01 AUDIO\n  INDEX 01 00:00:00\n TRACK 02 AUDIO\n  INDEX 01 00:01:00\n")
        let server = try WebDAVServer(root: files.path)
        let (_, _, client) = try daemon(webDAVConfig(server), songs: 2)
        XCTAssertEqual(try client.request("pin dav/Cue"), ["OK"])
        XCTAssertEqual(waitForPin(client, "dav/Cue", state: "completed")?["songs"], "1", "the image, once")
        XCTAssertEqual(try client.request("pinstatus dav/Cue").filter { $0.hasPrefix("file: ") }, ["file: dav/Cue/image.flac"])
    }

    /// An emulated Yandex.Disk account over `files`, each download at `rate` bytes a second.
    private func emulated(_ files: TemporaryDirectory, rate: Int) throws -> CloudEmulator {
        let emulator = try CloudEmulator(provider: "yandex-disk", root: files.path)
        keep += [files, emulator]
        try emulator.setRate(bytesPerSecond: rate)
        return emulator
    }

    private func done(_ client: LineClient, _ pin: String) -> Int { Int((try? pins(client))?[pin]?["done"] ?? "0") ?? 0 }

    private func size(_ path: String) -> Int { ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? Int) ?? -1 }

    func testKillNineMidDownloadResumesFromTheJournalAndEverySampleIsExact() throws {
        let files = try share(["Big/long.wav": 700_000])
        let emulator = try emulated(files, rate: 600_000)
        let (daemon, capture, client) = try daemon(emulator.configBlock(name: "disk"), songs: 1, capture: true)
        let indexing = emulator.bytesSent
        XCTAssertEqual(try client.request("pin disk/Big"), ["OK"])
        XCTAssertTrue(waitUntil(timeout: 20) { self.done(client, "disk/Big") > 1_300_000 }, "\((try? pins(client)) ?? [:])")
        XCTAssertEqual(daemon.stop(signal: SIGKILL), SIGKILL)
        try daemon.start()
        let again = try daemon.connect()
        XCTAssertNotNil(waitForPin(again, "disk/Big", state: "completed"))
        let fetched = emulator.bytesSent - indexing
        let whole = size(files.file("Big/long.wav"))
        XCTAssertGreaterThanOrEqual(fetched, whole)
        XCTAssertLessThan(fetched, whole + 700_000, "the second run resumed from the journal instead of starting over")
        try emulator.setRate(bytesPerSecond: 0)
        let before = emulator.bytesSent
        play(again, "disk/Big/long.wav", capture: capture!, frames: 700_000, "resumed after kill -9")
        XCTAssertEqual(emulator.bytesSent, before, "a pinned song plays from disk")
    }

    func testPauseStopsTrafficAndResumeFinishes() throws {
        let files = try share(["Big/long.wav": 400_000])
        let emulator = try emulated(files, rate: 300_000)
        let (daemon, _, client) = try daemon(emulator.configBlock(name: "disk"), songs: 1)
        XCTAssertEqual(try client.request("pin disk/Big"), ["OK"])
        XCTAssertTrue(waitUntil(timeout: 20) { self.done(client, "disk/Big") > 100_000 })
        XCTAssertEqual(try client.request("pausepin disk/Big"), ["OK"])
        XCTAssertNotNil(waitForPin(client, "disk/Big", state: "paused", timeout: 5))
        // What was in flight when the pause came lands, then nothing more moves.
        var last = -1
        XCTAssertTrue(waitUntil(timeout: 10) {
            let now = emulator.bytesSent
            defer { last = now }
            return now == last
        })
        let paused = emulator.bytesSent
        Thread.sleep(forTimeInterval: 1.5)
        XCTAssertEqual(emulator.bytesSent, paused, "a paused pin moves no bytes")
        XCTAssertTrue(try nimbus(["offline", "list"], daemon: daemon).contains("disk/Big (folder): paused 0/1 songs"))
        try emulator.setRate(bytesPerSecond: 0)
        let output = try nimbus(["offline", "resume", "disk/Big", "--wait"], daemon: daemon)
        XCTAssertTrue(output.contains("disk/Big (folder): completed 1/1 songs"), output)
        XCTAssertLessThan(emulator.bytesSent, size(files.file("Big/long.wav")) + 200_000, "resumed where it stopped")
    }

    func testAPinThatDoesNotFitWaitsForSpaceWithoutEvictingAnother() throws {
        let files = try share(["A/a.wav": 200_000, "B/b.wav": 300_000, "C/c.wav": 300_000])
        let emulator = try emulated(files, rate: 0)
        let (daemon, capture, client) = try daemon(emulator.configBlock(name: "disk") + "\ncache_size \"1500 KB\"", songs: 3, capture: true)
        XCTAssertEqual(try client.request("pin disk/A"), ["OK"])
        XCTAssertNotNil(waitForPin(client, "disk/A", state: "completed"))
        XCTAssertEqual(try client.request("pin disk/B"), ["OK"])
        let waiting = waitForPin(client, "disk/B", state: "waiting for space")
        XCTAssertTrue(waiting?["message"]?.contains("cache_size is 1.5 MiB") == true, "\(waiting ?? [:])")
        XCTAssertLessThan(Int(waiting?["done"] ?? "") ?? .max, 100_000, "only what indexing read: \(waiting ?? [:])")
        // An unpinned song larger than what is left of the budget plays; the pin stays whole.
        play(client, "disk/C/c.wav", capture: capture!, frames: 300_000, "unpinned, through the cache")
        let before = emulator.bytesSent
        play(client, "disk/A/a.wav", capture: capture!, frames: 200_000, "pinned")
        XCTAssertEqual(emulator.bytesSent, before, "the pinned song was not evicted")
        XCTAssertEqual(try pins(client)["disk/A"]?["state"], "completed")
        // Unpinning A makes room: B starts.
        XCTAssertEqual(try client.request("unpin disk/A"), ["OK"])
        XCTAssertNotNil(waitForPin(client, "disk/B", state: "completed"))
        _ = daemon
    }

    func testASignedOutAccountDropsPartialDownloadsAndKeepsCompletedOnes() throws {
        let files = try share(["small.wav": 44_100, "Big/long.wav": 600_000])
        let emulator = try emulated(files, rate: 200_000)
        let (daemon, capture, client) = try daemon(emulator.configBlock(name: "disk"), songs: 2, capture: true)
        let accounts = try nimbus(["accounts"], daemon: daemon)
        XCTAssertTrue(accounts.contains("disk (yandex-disk): ok"), accounts)
        XCTAssertTrue(accounts.contains("songs:   2 indexed"), accounts)
        XCTAssertEqual(try client.request("pin disk/small.wav"), ["OK"])
        XCTAssertEqual(try client.request("pin disk/Big"), ["OK"])
        XCTAssertNotNil(waitForPin(client, "disk/small.wav", state: "completed"))
        XCTAssertTrue(waitUntil(timeout: 20) { self.done(client, "disk/Big") > 100_000 })
        try FileManager.default.removeItem(atPath: emulator.tokenFile)
        let big = waitForPin(client, "disk/Big", state: "failed", timeout: 20)
        XCTAssertEqual(big?["done"], "0", "the partial download is dropped")
        XCTAssertTrue(big?["message"]?.hasPrefix("sign-in needed — run: nimbus authorize disk") == true, "\(big ?? [:])")
        XCTAssertEqual(try pins(client)["disk/small.wav"]?["state"], "completed")
        let signedOut = try nimbus(["accounts"], daemon: daemon)
        XCTAssertTrue(signedOut.contains("disk (yandex-disk): sign-in needed — run: nimbus authorize disk"), signedOut)
        play(client, "disk/small.wav", capture: capture!, frames: 44_100, "a completed download of a signed-out account")
    }

    func testConfiguredPinsShowUpAndPlaylistPinsFollowTheirEdits() throws {
        let files = try share(["A/1.wav": 22_050, "A/2.wav": 22_050, "B/3.wav": 22_050])
        let emulator = try emulated(files, rate: 0)
        let block = emulator.configBlock(name: "disk").replacingOccurrences(of: "\n}", with: "\n    pin \"A\"\n}")
        let (_, _, client) = try daemon(block, songs: 3)
        let configured = waitForPin(client, "disk/A", state: "completed")
        XCTAssertEqual(configured?["configured"], "1")
        XCTAssertEqual(
            try client.request("unpin disk/A"),
            ["ACK [2@0] {unpin} \"disk/A\" is pinned by a pin line of the config file; remove it there"])
        XCTAssertEqual(try client.request("playlistadd mix disk/B/3.wav"), ["OK"])
        XCTAssertEqual(try client.request("pinplaylist mix"), ["OK"])
        XCTAssertEqual(waitForPin(client, "mix", state: "completed")?["songs"], "1")
        XCTAssertEqual(try client.request("playlistadd mix disk/A/2.wav"), ["OK"])
        XCTAssertTrue(waitUntil { (try? self.pins(client))?["mix"]?["songs"] == "2" }, "the pin follows the playlist")
        XCTAssertEqual(try pins(client)["mix"]?["type"], "playlist")
        XCTAssertEqual(try client.request("unpinplaylist mix"), ["OK"])
        XCTAssertNil(try pins(client)["mix"])
    }

    func testAFullDiskFailsTheDownloadCleanlyAndARetryCompletesIt() throws {
        let disk = TemporaryDirectory("nimbus-small-disk")
        do {
            try runTool("/usr/bin/mount", ["-t", "tmpfs", "-o", "size=6m", "tmpfs", disk.path])
        } catch {
            throw XCTSkip("cannot mount a tmpfs here (not root?): \(error)")
        }
        defer { _ = try? runTool("/usr/bin/umount", ["-l", disk.path]) }
        let files = try share(["Big/long.wav": 700_000])
        let emulator = try emulated(files, rate: 500_000)
        let config = emulator.configBlock(name: "disk") + "\ncache_directory \"\(disk.path)/cache\""
        let (daemon, capture, client) = try daemon(config, songs: 1, capture: true)
        XCTAssertEqual(try client.request("pin disk/Big"), ["OK"])
        XCTAssertTrue(waitUntil(timeout: 20) { self.done(client, "disk/Big") > 300_000 })
        // Something else fills the disk in the middle of the download.
        _ = try? runTool("/usr/bin/dd", ["if=/dev/zero", "of=\(disk.path)/filler", "bs=64k"], includingErrors: true)
        let failed = waitForPin(client, "disk/Big", state: "failed", timeout: 20)
        XCTAssertTrue(failed?["message"]?.contains("No space left on device") == true, "\(failed ?? [:])")
        XCTAssertTrue(try client.request("status").contains("state: stop"), "the daemon goes on")
        XCTAssertTrue(daemon.log.contains("offline download of disk/Big/long.wav failed"), daemon.log)
        try FileManager.default.removeItem(atPath: disk.file("filler"))
        try emulator.setRate(bytesPerSecond: 0)
        XCTAssertEqual(try client.request("retrypin"), ["OK"])
        XCTAssertNotNil(waitForPin(client, "disk/Big", state: "completed"))
        play(client, "disk/Big/long.wav", capture: capture!, frames: 700_000, "after the disk was full")
    }

    /// mpc, python-mpd2, ncmpcpp and ncmpc idle on everything: progress, twice a second, must
    /// never wake them. A client that names `offline` is woken by it.
    func testProgressWakesOnlyClientsThatNameTheOfflineEvent() throws {
        let files = try share(["Big/long.wav": 1_000_000])
        let emulator = try emulated(files, rate: 200_000)
        let (daemon, _, client) = try daemon(emulator.configBlock(name: "disk") + "\nlog_level \"verbose\"", songs: 1)
        XCTAssertEqual(try client.request("pin disk/Big"), ["OK"])
        XCTAssertTrue(waitUntil(timeout: 20) { self.done(client, "disk/Big") > 0 })
        let subscriber = try daemon.connect()
        for _ in 0..<2 { XCTAssertEqual(try subscriber.request("idle offline"), ["changed: offline", "OK"]) }
        XCTAssertEqual(try subscriber.request("idle player offline"), ["changed: offline", "OK"])

        let port = "\(daemon.port)"
        let python = """
            import mpd, socket, sys
            client = mpd.MPDClient()
            client.timeout = 3
            client.idletimeout = 3
            client.connect("127.0.0.1", \(port))
            try:
                print("woken:", client.idle())
            except (socket.timeout, TimeoutError, mpd.ConnectionError):
                print("not woken")
            """
        XCTAssertEqual(try runTool("python3", ["-c", python]).trimmingCharacters(in: .whitespacesAndNewlines), "not woken")
        let mpc = Process()
        mpc.executableURL = URL(fileURLWithPath: "/usr/bin/mpc")
        mpc.arguments = ["-h", "127.0.0.1", "-p", port, "idle"]
        let mpcOutput = Pipe()
        mpc.standardOutput = mpcOutput
        try mpc.run()
        Thread.sleep(forTimeInterval: 3)
        XCTAssertTrue(mpc.isRunning, "mpc idle was woken by download progress")
        mpc.terminate()
        mpc.waitUntilExit()

        for program in ["ncmpcpp", "ncmpc"] where FileManager.default.isExecutableFile(atPath: "/usr/bin/" + program) {
            let marker = daemon.log.count
            let command = program == "ncmpcpp" ? "ncmpcpp -h 127.0.0.1 -p \(port)" : "ncmpc --host=127.0.0.1 --port=\(port)"
            let terminal = Process()
            terminal.executableURL = URL(fileURLWithPath: "/usr/bin/script")
            terminal.arguments = ["-qfec", command, "/dev/null"]
            terminal.environment = ["TERM": "xterm", "HOME": TemporaryDirectory("nimbus-tui-home").path, "PATH": "/usr/bin:/bin"]
            let input = Pipe()
            terminal.standardInput = input
            terminal.standardOutput = FileHandle.nullDevice
            terminal.standardError = FileHandle.nullDevice
            try terminal.run()
            Thread.sleep(forTimeInterval: 4)
            terminal.terminate()
            terminal.waitUntilExit()
            let window = String(daemon.log.dropFirst(marker))
            let idles = window.split(separator: "\n").filter { $0.contains("process command idle") }
            XCTAssertFalse(idles.isEmpty, "\(program) never went idle: \(window)")
            XCTAssertLessThanOrEqual(idles.count, 3, "\(program) was woken again and again while downloads ran: \(idles)")
            XCTAssertTrue(idles.allSatisfy { !$0.contains("offline") })
        }
        XCTAssertEqual(try client.request("pausepin"), ["OK"])
    }

    func testOfflineAddWaitsForCompletionAndSaysWhyWhenItCannot() throws {
        let files = try share(["A/1.wav": 44_100, "B/2.wav": 400_000])
        let emulator = try emulated(files, rate: 0)
        let (daemon, _, client) = try daemon(emulator.configBlock(name: "disk") + "\ncache_size \"1 MB\"", songs: 2)
        let output = try nimbus(["offline", "add", "disk/A", "--wait"], daemon: daemon)
        XCTAssertTrue(output.contains("disk/A: kept offline"), output)
        XCTAssertTrue(output.contains("disk/A (folder): completed 1/1 songs"), output)
        XCTAssertEqual(try pins(client)["disk/A"]?["state"], "completed")
        do {
            let unexpected = try nimbus(["offline", "add", "disk/B", "--wait"], daemon: daemon)
            XCTFail("a pin larger than cache_size cannot complete: \(unexpected)")
        } catch let failure as ToolFailure {
            XCTAssertTrue(failure.description.contains("exited 1"), failure.description)
            XCTAssertTrue(failure.description.contains("disk/B is not complete: needs 1.5 MiB; cache_size is 1.0 MiB"), failure.description)
        }
        do {
            _ = try nimbus(["offline", "add", "disk/nowhere"], daemon: daemon)
            XCTFail("pinning what does not exist succeeded")
        } catch let failure as ToolFailure {
            XCTAssertTrue(failure.description.contains("disk/nowhere: No such song or directory"), failure.description)
        }
        XCTAssertTrue(try nimbus(["offline", "remove", "disk/B"], daemon: daemon).contains("disk/B: no longer kept offline"))
        XCTAssertEqual(try pins(client).keys.sorted(), ["disk/A"])
    }

    /// `nimbus accounts` (issue 12): who signed in, the songs, the cache, the last update, and
    /// an account that stopped answering, with since when.
    func testAccountsShowTheUserTheCacheAndAnUnreachableAccount() throws {
        let files = try share(["A/1.wav": 44_100])
        let emulator = try CloudEmulator(provider: "yandex-disk", root: files.path)
        keep.append(emulator)
        let (daemon, _, client) = try daemon(emulator.configBlock(name: "disk"), songs: 1)
        XCTAssertEqual(try client.request("pin disk/A"), ["OK"])
        XCTAssertNotNil(waitForPin(client, "disk/A", state: "completed"))
        var shown = ""
        XCTAssertTrue(waitUntil { shown = (try? self.nimbus(["accounts"], daemon: daemon)) ?? ""; return shown.contains("user:    Test") })
        XCTAssertTrue(shown.contains("user:    Test Listener (listener@yandex.ru)"), shown)
        XCTAssertTrue(shown.contains("cache:   172 KiB cached, 172 KiB pinned for offline use"), shown)
        XCTAssertFalse(shown.contains("updated: never"), shown)
        let fields = try client.request("listaccounts")
        XCTAssertEqual(fields.first, "account: disk")
        XCTAssertTrue(fields.contains { $0.hasPrefix("pinned: 17") }, "\(fields)")
        XCTAssertFalse(fields.joined().contains(emulator.clientSecret), "no secret in the answer")
        emulator.stop()
        XCTAssertEqual(try client.request("update disk").last, "OK")
        XCTAssertTrue(waitUntil { shown = (try? self.nimbus(["accounts"], daemon: daemon)) ?? ""; return shown.contains("unreachable since") }, shown)
        XCTAssertTrue(shown.contains("songs:   1 indexed"), "an unreachable account keeps its songs: \(shown)")
    }
}
