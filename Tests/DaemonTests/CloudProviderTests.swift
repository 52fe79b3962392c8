import Foundation
import NimbusHarness
import XCTest

/// Yandex.Disk, Dropbox, Google Drive and OneDrive through the project's emulators of their
/// APIs: indexing, playback, token expiry, throttling and a dropped connection mid-song.
final class CloudProviderTests: XCTestCase {
    private var keep: [AnyObject] = []

    override func tearDown() {
        keep.removeAll()
        super.tearDown()
    }

    /// Two folders of frame-numbered ramps (FLAC, lossless), eight songs in all, so listings
    /// take more than one page.
    private func drive() throws -> TemporaryDirectory {
        let drive = TemporaryDirectory("nimbus-drive")
        for folder in ["Music/Первый альбом", "Music/Second & Third"] {
            try FileManager.default.createDirectory(atPath: drive.file(folder), withIntermediateDirectories: true)
            for index in 1...4 {
                let wav = drive.file("\(folder)/\(index).wav")
                try AudioFixtures.writeRampWAV(to: wav, frames: 44_100 * 3)
                try runTool("flac", ["-s", "-f", "-T", "TITLE=Track \(index)", "-o", drive.file("\(folder)/0\(index) song.flac"), wav])
                try FileManager.default.removeItem(atPath: wav)
            }
        }
        return drive
    }

    private func start(_ provider: String, paced: Bool = false) throws -> (CloudEmulator, ServerProcess, LineClient, ALSACapture) {
        let files = try drive()
        let emulator = try CloudEmulator(provider: provider, root: files.path)
        let music = TemporaryDirectory("nimbus-local")
        let capture = ALSACapture(in: music)
        let daemon = try ServerProcess(
            .nimbus, config: ALSACapture.outputBlock() + "\n" + emulator.configBlock(name: "cloud", root: "/Music"),
            musicDirectory: music.path, nullOutput: paced, environment: capture.environment)
        keep += [files, emulator, music, daemon]
        try daemon.waitForDatabase(songs: 8, timeout: 60)
        return (emulator, daemon, try daemon.connect(), capture)
    }

    /// A folder's `Last-Modified` as its provider lists it: the folder's time on the emulated
    /// disk, or the epoch for Dropbox, whose folder entries carry no time.
    private func folderTime(_ provider: String, _ emulator: CloudEmulator, _ folder: String) throws -> String {
        guard provider != "dropbox" else { return "1970-01-01T00:00:00Z" }
        let modified = try FileManager.default.attributesOfItem(atPath: emulator.root + "/" + folder)[.modificationDate] as! Date
        let formatter = ISO8601DateFormatter()
        formatter.timeZone = TimeZone(identifier: "UTC")
        return formatter.string(from: Date(timeIntervalSince1970: modified.timeIntervalSince1970.rounded(.down)))
    }

    private func checkProvider(_ provider: String) throws {
        try XCTSkipUnless(FileManager.default.fileExists(atPath: "/usr/bin/python3"), "python3 is not installed")
        let (emulator, daemon, client, capture) = try start(provider)
        XCTAssertEqual(
            try client.request("lsinfo cloud"),
            ["directory: cloud/Second & Third", "Last-Modified: " + (try folderTime(provider, emulator, "Music/Second & Third")),
             "directory: cloud/Первый альбом", "Last-Modified: " + (try folderTime(provider, emulator, "Music/Первый альбом")), "OK"])
        XCTAssertEqual(try client.request("find title \"Track 3\"").filter { $0.hasPrefix("file: ") }.count, 2)
        XCTAssertEqual(try client.request("add \"cloud/Первый альбом/02 song.flac\""), ["OK"])
        XCTAssertEqual(try client.request("add \"cloud/Second & Third/04 song.flac\""), ["OK"])
        XCTAssertEqual(try client.request("play"), ["OK"])
        XCTAssertTrue(client.waitForStatus("state: stop"), "playback did not stop")
        let played = AudioFixtures.rampIndices(capture.bytes)
        XCTAssertEqual(played.count, 2 * 132_300, "\(provider): both songs in full; log: \(daemon.log.suffix(3000)) \(daemon.output.suffix(2000))")
        XCTAssertTrue(played.prefix(132_300).elementsEqual(0..<132_300), "\(provider): first song exact")
        XCTAssertTrue(played.suffix(132_300).elementsEqual(0..<132_300), "\(provider): second song exact")
        XCTAssertNil(try client.request("status").first { $0.hasPrefix("error:") })
        _ = emulator
        XCTAssertFalse(daemon.log.contains("access-"), "tokens never reach the log")
    }

    func testYandexDisk() throws { try checkProvider("yandex-disk") }
    func testDropbox() throws { try checkProvider("dropbox") }
    func testGoogleDrive() throws { try checkProvider("google-drive") }
    func testOneDrive() throws { try checkProvider("onedrive") }

    /// Mid-song, every token expires and the download connection drops: playback goes on, in
    /// real time, with every frame.
    func testTokenExpiryAndADroppedConnectionMidSong() throws {
        try XCTSkipUnless(FileManager.default.fileExists(atPath: "/usr/bin/python3"), "python3 is not installed")
        let (emulator, daemon, client, capture) = try start("onedrive", paced: true)
        for index in 1...4 { XCTAssertEqual(try client.request("add \"cloud/Первый альбом/0\(index) song.flac\""), ["OK"]) }
        XCTAssertEqual(try client.request("play"), ["OK"])
        Thread.sleep(forTimeInterval: 1)
        try emulator.expireTokens()
        try emulator.dropNextDownload(after: 20_000)
        try emulator.throttle(count: 1)
        XCTAssertTrue(client.waitForStatus("state: stop", timeout: 40), "playback did not stop")
        // In real time: the paced output never found the pipe empty mid-song (the daemon says so when it does).
        XCTAssertFalse(daemon.log.contains("output \"null\" ran dry"), daemon.log)
        let played = AudioFixtures.rampIndices(capture.bytes)
        XCTAssertEqual(played.count, 4 * 132_300)
        for song in 0..<4 {
            XCTAssertTrue(played[(song * 132_300)..<((song + 1) * 132_300)].elementsEqual(0..<132_300), "song \(song + 1) exact")
        }
        XCTAssertNil(try client.request("status").first { $0.hasPrefix("error:") })
    }

    /// OneDrive rotates refresh tokens: the new one is written back, so it still works after a
    /// restart.
    func testARotatedRefreshTokenIsKept() throws {
        try XCTSkipUnless(FileManager.default.fileExists(atPath: "/usr/bin/python3"), "python3 is not installed")
        let (emulator, daemon, client, _) = try start("onedrive")
        let before = try String(contentsOfFile: emulator.tokenFile, encoding: .utf8)
        try emulator.expireTokens()
        XCTAssertEqual(try client.request("update cloud"), ["updating_db: 2", "OK"])
        try daemon.waitForDatabase(songs: 8)
        let after = try String(contentsOfFile: emulator.tokenFile, encoding: .utf8)
        XCTAssertNotEqual(before, after, "the rotated refresh token was saved")
        try emulator.expireTokens()
        try daemon.restart()
        let again = try daemon.connect()
        XCTAssertEqual(try again.request("update cloud"), ["updating_db: 1", "OK"])
        try daemon.waitForDatabase(songs: 8)
        XCTAssertNil(try again.request("status").first { $0.hasPrefix("error:") })
    }

    /// A provider that answers 429 with a long Retry-After: the account says until when it is
    /// rate limited, its songs stay, and the first answer afterwards makes it `ok` again.
    func testARateLimitedAccountSaysUntilWhen() throws {
        try XCTSkipUnless(FileManager.default.fileExists(atPath: "/usr/bin/python3"), "python3 is not installed")
        let (emulator, daemon, client, _) = try start("yandex-disk")
        // An hour is too long to wait inside an update: it fails at once, and the state lasts
        // until an answer gets through.
        try emulator.throttle(count: 1, retryAfter: 3600)
        let asked = Date()
        XCTAssertEqual(try client.request("update cloud"), ["updating_db: 2", "OK"])
        var fields: [String] = []
        XCTAssertTrue(waitUntil(timeout: 60) {
            fields = (try? client.request("listaccounts")) ?? []
            return fields.contains("state: rate limited")
        }, "\(fields)")
        let until = try XCTUnwrap(fields.first { $0.hasPrefix("until: ") }.map { String($0.dropFirst(7)) })
        let formatter = ISO8601DateFormatter()
        let when = try XCTUnwrap(formatter.date(from: until))
        XCTAssertEqual(when.timeIntervalSince(asked), 3600, accuracy: 60, "until an hour from now: \(until)")
        XCTAssertTrue(fields.contains("songs: 8"), "its songs stay: \(fields)")
        XCTAssertTrue(waitUntil(timeout: 30) { (try? client.request("status"))?.contains { $0.hasPrefix("updating_db") } == false })
        XCTAssertEqual(try client.request("update cloud"), ["updating_db: 3", "OK"])
        XCTAssertTrue(waitUntil(timeout: 20) { (try? client.request("listaccounts"))?.contains("state: ok") == true }, "\((try? client.request("listaccounts")) ?? []) \(daemon.log.suffix(1200))")
        _ = daemon
    }

    /// Throttled listings are retried after Retry-After; an expired login shows in status.
    func testThrottlingAndRevokedCredentials() throws {
        try XCTSkipUnless(FileManager.default.fileExists(atPath: "/usr/bin/python3"), "python3 is not installed")
        let (emulator, daemon, client, _) = try start("dropbox")
        try emulator.throttle(count: 2)
        XCTAssertEqual(try client.request("update cloud"), ["updating_db: 2", "OK"])
        try daemon.waitForDatabase(songs: 8)
        XCTAssertNil(try client.request("status").first { $0.hasPrefix("error:") })
        // A token file whose refresh token is no longer valid: re-authorization is needed.
        try Data("{\"access_token\": \"revoked\", \"refresh_token\": \"revoked\"}".utf8)
            .write(to: URL(fileURLWithPath: emulator.tokenFile))
        try daemon.restart()
        let again = try daemon.connect()
        XCTAssertEqual(try again.request("update cloud"), ["updating_db: 1", "OK"])
        // Account health is a state of the account (listaccounts, idle account), never a `status` error.
        XCTAssertTrue(waitUntil { (try? again.request("listaccounts"))?.contains("state: sign-in needed") == true })
        XCTAssertNil(try again.request("status").first { $0.hasPrefix("error:") })
        XCTAssertTrue(try again.request("stats").contains("songs: 8"), "the account's songs stay while it cannot be reached")
        // A refused refresh is not tried again and again: nothing reaches the provider until
        // a new sign-in replaces the token file.
        let requests = emulator.requests
        XCTAssertEqual(try again.request("update cloud"), ["updating_db: 2", "OK"])
        XCTAssertTrue(waitUntil { (try? again.request("status"))?.contains { $0.hasPrefix("updating_db") } == false })
        XCTAssertEqual(emulator.requests, requests)
        XCTAssertTrue(daemon.log.contains("cloud:"), "the log names the account")
    }
}
