import Foundation
import NimbusHarness
import XCTest

/// Music on the home network, against real servers started here on loopback ports: Samba's
/// smbd, OpenSSH's sshd (SFTP) and pyftpdlib (FTP, with and without MLSD). Each share is
/// mounted as MPD's clients mount one, checked before `mount` answers, indexed with the same
/// tags as the local library, played sample-exact through ALSA's file plugin, sought, pinned
/// and played again with the server gone; passwords stay out of every answer, log and file.
/// What the network share tests share: fixture songs, a daemon playing into ALSA's file
/// plugin, sample-exact checks.
class NetworkShareTestCase: XCTestCase {
    var keep: [AnyObject] = []


    override func tearDown() {
        keep.removeAll()
        super.tearDown()
    }

    /// Lossless ramp songs (every frame says its index), tagged, under `Artist/Album/`.
    func library() throws -> TemporaryDirectory {
        let share = TemporaryDirectory("nimbus-share")
        try FileManager.default.createDirectory(atPath: share.file("Band/Album"), withIntermediateDirectories: true)
        for (index, frames) in [(1, 88_200), (2, 66_150)] {
            let wav = share.file("ramp\(index).wav")
            try AudioFixtures.writeRampWAV(to: wav, frames: frames)
            try runTool("flac", [
                "-s", "-f", "-T", "ARTIST=Band", "-T", "ALBUM=Album", "-T", "TITLE=Song \(index)", "-T", "TRACKNUMBER=\(index)",
                "-o", share.file("Band/Album/0\(index).flac"), wav,
            ])
            try FileManager.default.removeItem(atPath: wav)
        }
        keep.append(share)
        return share
    }

    func daemon(config: String = "", songs: Int = 0, music: TemporaryDirectory? = nil) throws -> (ServerProcess, ALSACapture, LineClient) {
        let music = music ?? TemporaryDirectory("nimbus-local")
        let capture = ALSACapture(in: music)
        let daemon = try ServerProcess(
            .nimbus, config: ALSACapture.outputBlock() + "\n" + config, musicDirectory: music.path, nullOutput: false,
            environment: capture.environment)
        keep += [music, daemon]
        if songs > 0 { try daemon.waitForDatabase(songs: songs) }
        return (daemon, capture, try daemon.connect())
    }

    func waitForSongs(_ client: LineClient, _ count: Int, timeout: Double = 60) {
        XCTAssertTrue(waitUntil(timeout: timeout) { (try? client.request("stats"))?.contains("songs: \(count)") == true },
            "\((try? client.request("stats")) ?? [])")
    }

    func play(_ client: LineClient, _ uri: String, capture: ALSACapture, frames: Int, _ message: String) {
        for command in ["clear", "add \"\(uri)\"", "play"] { XCTAssertEqual(try client.request(command), ["OK"], command) }
        XCTAssertTrue(client.waitForStatus("state: stop", timeout: 30), "playback did not stop")
        assertRamp(capture, 0..<frames, "\(message): every sample exact")
    }

    /// The capture holds exactly these frames of the ramp (a short message when it does not).
    func assertRamp(_ capture: ALSACapture, _ frames: Range<Int>, _ message: String, file: StaticString = #filePath, line: UInt = #line) {
        let indices = AudioFixtures.rampIndices(capture.bytes)
        guard indices != Array(frames) else { return }
        let first = Array(zip(indices, frames)).firstIndex { $0.0 != $0.1 }
        XCTFail("\(message): \(indices.count) frames (\(frames.count) expected), first \(indices.first ?? -1), last \(indices.last ?? -1), first wrong at \(first ?? -1)", file: file, line: line)
    }

    /// A song's record without the times that depend on where it is kept.
    func record(_ client: LineClient, _ uri: String) throws -> [String] {
        try client.request("lsinfo \"\(uri)\"").filter { !$0.hasPrefix("file: ") && !$0.hasPrefix("Last-Modified: ") && !$0.hasPrefix("Added: ") }
    }

    /// The share's songs have the records the same files have in a local library.
    func assertSameAsLocal(_ client: LineClient, mount: String, local: LineClient) throws {
        for song in ["Band/Album/01.flac", "Band/Album/02.flac"] {
            XCTAssertEqual(try record(client, mount + "/" + song), try record(local, song), song)
        }
    }

    /// Whether `secret` is in any file under `directory` (names included).
    func anyFile(under directory: String, contains secret: String) -> Bool {
        let names = FileManager.default.enumerator(atPath: directory)?.compactMap { $0 as? String } ?? []
        return names.contains { name in
            name.contains(secret) || ((try? Data(contentsOf: URL(fileURLWithPath: directory + "/" + name)))
                .map { String(decoding: $0, as: UTF8.self).contains(secret) } ?? false)
        }
    }

}

final class NetworkShareTests: NetworkShareTestCase {
    func testSMBShareIsCheckedIndexedPlayedSoughtAndKeptOffline() throws {
        try XCTSkipUnless(SambaServer.available, "smbd is not installed (scripts/install-deps) or not root")
        let share = try library()
        var server: SambaServer? = try SambaServer(root: share.path)
        let smb = server!
        let (daemon, capture, client) = try daemon()
        let (_, _, local) = try self.daemon(songs: 2, music: share)

        XCTAssertEqual(
            try client.request("mount nas \(smb.url(password: "wrong"))"),
            ["ACK [3@0] {mount} \(smb.url()): the server refused the login (or the access)"])
        XCTAssertEqual(
            try client.request("mount nas smb://\(smb.user):\(smb.password)@127.0.0.1:\(smb.port)/nothing"),
            ["ACK [50@0] {mount} smb://\(smb.user)@127.0.0.1:\(smb.port)/nothing: no such file or folder"])
        XCTAssertEqual(
            try client.request("mount nas \(smb.url("/Band/None", password: smb.password))"),
            ["ACK [50@0] {mount} \(smb.url("/Band/None")): no such file or folder"])
        XCTAssertEqual(try client.request("listmounts"), ["mount: ", "OK"], "a refused mount leaves nothing behind")
        XCTAssertEqual(try client.request("mount nas \(smb.url(password: smb.password))"), ["OK"])
        XCTAssertEqual(try client.request("listmounts"), ["mount: ", "mount: nas", "storage: \(smb.url())", "OK"])
        waitForSongs(client, 2)
        try assertSameAsLocal(client, mount: "nas", local: local)
        XCTAssertEqual(try client.request("list album artist Band"), ["Album: Album", "OK"])

        play(client, "nas/Band/Album/01.flac", capture: capture, frames: 88_200, "over SMB")
        // A seek into the middle plays from there to the end, every frame.
        for command in ["clear", "add nas/Band/Album/02.flac", "seek 0 1"] { XCTAssertEqual(try client.request(command), ["OK"], command) }
        XCTAssertTrue(client.waitForStatus("state: stop", timeout: 30))
        assertRamp(capture, 44_100..<66_150, "seek over SMB")

        XCTAssertEqual(try client.request("pin nas/Band"), ["OK"])
        XCTAssertTrue(waitUntil(timeout: 30) { (try? client.request("listpins"))?.contains("state: completed") == true })
        server?.stop()
        server = nil
        try daemon.restart()
        let again = try daemon.connect()
        XCTAssertEqual(try again.request("listmounts"), ["mount: ", "mount: nas", "storage: \(smb.url())", "OK"], "the mount survived the restart")
        play(again, "nas/Band/Album/02.flac", capture: capture, frames: 66_150, "pinned, with smbd gone")
        XCTAssertEqual(try again.request("ping"), ["OK"])

        XCTAssertFalse(daemon.log.contains(smb.password), "the password never reaches the log")
        XCTAssertFalse(anyFile(under: daemon.directory.path, contains: smb.password + "@"), "nor the state or cache files")
        XCTAssertFalse(try again.request("status").joined().contains(smb.password))
        XCTAssertEqual(try again.request("unmount nas"), ["OK"])
        XCTAssertFalse(anyFile(under: daemon.directory.path, contains: smb.password), "unmount forgets the password")
    }

    func testSFTPNeedsTheHostKeyConfirmedThenPlaysByPasswordOrKey() throws {
        try XCTSkipUnless(SSHServer.available, "sshd is not installed (scripts/install-deps) or not root")
        let share = try library()
        let ssh = try SSHServer()
        keep.append(ssh)
        let (daemon, capture, client) = try daemon()
        let address = ssh.url(share.path, password: ssh.password)
        let refused = try client.request("mount box \(address)")
        XCTAssertEqual(refused.count, 1)
        XCTAssertTrue(refused[0].hasPrefix("ACK [3@0] {mount} "), "\(refused)")
        XCTAssertTrue(refused[0].contains("the server's host key \(ssh.fingerprint) is not trusted yet"), "the person is shown the fingerprint: \(refused)")
        XCTAssertEqual(try client.request("mount box \(address)?fingerprint=SHA256:AAAAwrongwrongwrong").first?.hasPrefix("ACK [3@0]"), true)
        XCTAssertEqual(try client.request("listmounts"), ["mount: ", "OK"])
        XCTAssertEqual(try client.request("mount box \(address)?fingerprint=\(ssh.fingerprint)"), ["OK"])
        waitForSongs(client, 2)
        XCTAssertEqual(try record(client, "box/Band/Album/02.flac").filter { $0.hasPrefix("Title: ") }, ["Title: Song 2"])
        play(client, "box/Band/Album/01.flac", capture: capture, frames: 88_200, "over SFTP")
        for command in ["clear", "add box/Band/Album/02.flac", "seek 0 1"] { XCTAssertEqual(try client.request(command), ["OK"], command) }
        XCTAssertTrue(client.waitForStatus("state: stop", timeout: 30))
        assertRamp(capture, 44_100..<66_150, "seek over SFTP")

        // A key instead of a password; the host key is known now.
        XCTAssertEqual(try client.request("mount keyed \(ssh.url(share.path))?key=\(ssh.clientKey)&fingerprint=\(ssh.fingerprint)"), ["OK"])
        waitForSongs(client, 4)
        play(client, "keyed/Band/Album/02.flac", capture: capture, frames: 66_150, "over SFTP with a key")
        XCTAssertFalse(daemon.log.contains(ssh.password))
        XCTAssertFalse(try client.request("listmounts").joined().contains(ssh.password))
    }

    func testFTPListsByMLSDOrNLSTAndPlays() throws {
        try XCTSkipUnless(FTPServer.available, "python3-pyftpdlib is not installed (scripts/install-deps)")
        let share = try library()
        let modern = try FTPServer(root: share.path)
        let old = try FTPServer(root: share.path, machineListing: false)
        keep += [modern, old]
        let (daemon, capture, client) = try daemon()
        let (_, _, local) = try self.daemon(songs: 2, music: share)
        XCTAssertEqual(try client.request("mount ftp \(modern.url(password: "nope"))"), ["ACK [3@0] {mount} \(modern.url()): the server refused the login"])
        XCTAssertEqual(try client.request("mount ftp \(modern.url(password: modern.password))"), ["OK"])
        XCTAssertEqual(try client.request("mount old \(old.url(password: old.password))"), ["OK"])
        waitForSongs(client, 4)
        try assertSameAsLocal(client, mount: "ftp", local: local)
        try assertSameAsLocal(client, mount: "old", local: local)
        XCTAssertTrue(try client.request("listfiles old/Band/Album").contains("size: \(try FileManager.default.attributesOfItem(atPath: share.file("Band/Album/01.flac"))[.size] as? Int ?? -1)"))
        play(client, "ftp/Band/Album/01.flac", capture: capture, frames: 88_200, "over FTP")
        for command in ["clear", "add old/Band/Album/02.flac", "seek 0 1"] { XCTAssertEqual(try client.request(command), ["OK"], command) }
        XCTAssertTrue(client.waitForStatus("state: stop", timeout: 30))
        assertRamp(capture, 44_100..<66_150, "REST over FTP without MLSD")
        XCTAssertFalse(daemon.log.contains(modern.password))
    }
}
