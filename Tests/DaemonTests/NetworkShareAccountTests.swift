import Foundation
import NimbusHarness
import XCTest

/// Shares as accounts (`addaccount`, `signin`, `signinpassword`, `cloud { }` blocks), and
/// bad servers and bad input: a folder of 100,000 entries, a name that is not UTF-8, a
/// symbolic link loop, a file that shrinks while it is read, a server that stalls. Each ends
/// in a precise ACK or a `status` error naming the account; the daemon keeps serving.
final class NetworkShareAccountTests: NetworkShareTestCase {
    func fields(_ lines: [String]) -> [String: String] {
        Dictionary(
            lines.compactMap { line in line.range(of: ": ").map { (String(line[..<$0.lowerBound]), String(line[$0.upperBound...])) } },
            uniquingKeysWith: { first, _ in first })
    }

    func account(_ client: LineClient, _ name: String) throws -> [String: String] {
        var records: [[String: String]] = []
        for line in try client.request("listaccounts").dropLast() {
            guard let colon = line.range(of: ": ") else { continue }
            let (key, value) = (String(line[..<colon.lowerBound]), String(line[colon.upperBound...]))
            if key == "account" { records.append([:]) }
            if !records.isEmpty { records[records.count - 1][key] = value }
        }
        return records.first { $0["account"] == name } ?? [:]
    }

    func testSharesAreAddedAndSignedInToLikeCloudAccounts() throws {
        try XCTSkipUnless(SambaServer.available && SSHServer.available, "smbd or sshd is not installed (scripts/install-deps) or not root")
        let share = try library()
        let smb = try SambaServer(root: share.path)
        let ssh = try SSHServer()
        keep += [smb, ssh]
        let (daemon, capture, client) = try daemon()
        XCTAssertEqual(try client.request("addaccount nas smb url smb://127.0.0.1:\(smb.port)/music user \(smb.user)"), ["OK"])
        XCTAssertEqual(
            try client.request("addaccount bad smb url smb://u:p@127.0.0.1:\(smb.port)/music"),
            ["ACK [2@0] {addaccount} the password goes to signinpassword, not into \"url\""])
        XCTAssertEqual(try account(client, "nas")["signin"], "needed")
        let refused = try client.request("signinpassword nas wrong-one")
        XCTAssertTrue(refused.first?.hasPrefix("ACK [3@0] {signinpassword} ") == true, "\(refused)")
        // Mid-sign-in and refused: the account's state says so, `status` carries no error and no box path.
        let other = try daemon.connect()
        XCTAssertNotEqual(try account(client, "nas")["signin"], "signed in")
        for line in try other.request("status") {
            XCTAssertFalse(line.hasPrefix("error:") || line.contains(daemon.directory.path), line)
        }
        XCTAssertEqual(try client.request("signinpassword nas \(smb.password)"), ["OK"])
        XCTAssertNil(try other.request("status").first { $0.hasPrefix("error:") })
        waitForSongs(client, 2)
        XCTAssertEqual(try account(client, "nas")["signin"], "signed in")

        // SFTP: the password alone is refused until the person has seen the host key.
        let url = ssh.url(share.path)
        XCTAssertEqual(try client.request("addaccount box sftp url \(url)"), ["OK"])
        let unseen = try client.request("signinpassword box \(ssh.password)")
        XCTAssertTrue(unseen.first?.contains("host key \(ssh.fingerprint) is not trusted yet") == true, "\(unseen)")
        let prompt = fields(try client.request("signin box"))
        XCTAssertEqual(prompt["method"], "password")
        XCTAssertEqual(prompt["fingerprint"], ssh.fingerprint)
        XCTAssertEqual(prompt["host_key"], "new")
        XCTAssertEqual(try client.request("signinpassword box \(ssh.password)"), ["OK"])
        waitForSongs(client, 4)
        XCTAssertEqual(fields(try client.request("signin box"))["host_key"], "known", "the key was written to the account's known_hosts")
        XCTAssertEqual(try client.request("signincancel box"), ["OK"])
        play(client, "box/Band/Album/02.flac", capture: capture, frames: 66_150, "an SFTP account")
        XCTAssertFalse(daemon.log.contains(smb.password) || daemon.log.contains(ssh.password))
        XCTAssertFalse(anyFile(under: daemon.directory.path + "/cache", contains: smb.password))
        let knownHosts = daemon.directory.file("accounts/box.known_hosts")
        XCTAssertTrue((try? String(contentsOfFile: knownHosts, encoding: .utf8))?.contains("[127.0.0.1]:\(ssh.port) ssh-ed25519 ") == true)
        XCTAssertEqual(try client.request("removeaccount box"), ["OK"])
        XCTAssertFalse(FileManager.default.fileExists(atPath: knownHosts), "the account's known_hosts goes with it")
        XCTAssertFalse(FileManager.default.fileExists(atPath: daemon.directory.file("accounts/box.password")))
    }

    func testConfiguredSFTPAccountWithAKey() throws {
        try XCTSkipUnless(SSHServer.available, "sshd is not installed (scripts/install-deps) or not root")
        let share = try library()
        let ssh = try SSHServer()
        keep.append(ssh)
        let config = """
            cloud {
                name "home"
                type "sftp"
                url "\(ssh.url(share.path))"
                key_file "\(ssh.clientKey)"
                fingerprint "\(ssh.fingerprint)"
            }
            """
        let (_, capture, client) = try daemon(config: config, songs: 2)
        XCTAssertEqual(try account(client, "home")["type"], "sftp")
        play(client, "home/Band/Album/01.flac", capture: capture, frames: 88_200, "a configured SFTP account with a key")
    }

    func testBadServersAndBadNamesEndInPreciseErrors() throws {
        try XCTSkipUnless(SambaServer.available && FTPServer.available, "smbd or pyftpdlib is not installed (scripts/install-deps)")
        let share = try library()
        // A folder of 100,000 entries, a link to its own folder, a name in Latin-1.
        try FileManager.default.createDirectory(atPath: share.file("Many"), withIntermediateDirectories: true)
        try runTool("/usr/bin/python3", ["-c", "import os,sys\nfor i in range(100000): open(os.path.join(sys.argv[1], 'f%06d.txt' % i), 'w').close()", share.file("Many")])
        try FileManager.default.createSymbolicLink(atPath: share.file("Band/loop"), withDestinationPath: ".")
        // Long enough that indexing reads only their heads: playing them needs the server.
        try FileManager.default.createDirectory(atPath: share.file("Long"), withIntermediateDirectories: true)
        try AudioFixtures.writeRampWAV(to: share.file("Long/shrinks.wav"), frames: 1_323_000)
        try AudioFixtures.writeRampWAV(to: share.file("Long/stalls.wav"), frames: 1_323_000)
        try runTool("/usr/bin/python3", ["-c", "import sys\nopen(sys.argv[1].encode() + b'/caf\\xe9.flac', 'w').close()", share.file("Band/Album")])
        let smb = try SambaServer(root: share.path)
        let ftp = try FTPServer(root: share.path)
        keep += [smb, ftp]
        let (daemon, capture, client) = try daemon(config: "log_level \"verbose\"")
        XCTAssertEqual(try client.request("mount nas \(smb.url(password: smb.password))"), ["OK"])
        XCTAssertEqual(try client.request("mount ftp \(ftp.url(password: ftp.password))"), ["OK"])
        waitForSongs(client, 8, timeout: 120)
        XCTAssertTrue(waitUntil(timeout: 120) { (try? client.request("status"))?.contains { $0.hasPrefix("updating_db") } == false })
        XCTAssertTrue(try client.request("stats").contains("songs: 8"), "each share's four songs once: the link loop is cut")
        XCTAssertTrue(daemon.log.contains("symbolic link loop"), "and said so")
        // 100,000 lines take a while to list and send in a debug build: a patient client.
        let patient = try daemon.connect(timeout: 120)
        XCTAssertEqual(try patient.request("listfiles nas/Many").filter { $0.hasPrefix("file: ") }.count, 100_000)
        XCTAssertEqual(try patient.request("listfiles ftp/Many").filter { $0.hasPrefix("file: ") }.count, 100_000)
        XCTAssertTrue(daemon.log.contains("name is not valid UTF-8"), "the Latin-1 name is skipped with a log line")
        XCTAssertEqual(try client.request("ping"), ["OK"])

        // A file that shrinks after it was listed: noticed at the first read, the new version
        // played from its start, nothing of the old one spliced in.
        let song = share.file("Long/shrinks.wav")
        let whole = try Data(contentsOf: URL(fileURLWithPath: song))
        try whole.prefix(whole.count / 2).write(to: URL(fileURLWithPath: song))
        for command in ["add nas/Long/shrinks.wav", "play"] { XCTAssertEqual(try client.request(command), ["OK"], command) }
        XCTAssertTrue(client.waitForStatus("state: stop", timeout: 60))
        let played = AudioFixtures.rampIndices(capture.bytes)
        XCTAssertEqual(played.count, (whole.count / 2 - 44) / 4, "the shorter file, whole")
        XCTAssertTrue(played == Array(0..<played.count), "no frame of the old version")
        XCTAssertTrue(daemon.log.contains("nas/Long/shrinks.wav changed on the server"), "and a log line says why")
        XCTAssertEqual(try client.request("ping"), ["OK"])

        // A server that stops answering: the song fails with the mount named, other clients are served meanwhile.
        _ = try? runTool("/usr/bin/pkill", ["-STOP", "-f", smb.configPath])
        defer { _ = try? runTool("/usr/bin/pkill", ["-CONT", "-f", smb.configPath]) }
        for command in ["clear", "add nas/Long/stalls.wav", "play"] { XCTAssertEqual(try client.request(command), ["OK"], command) }
        let other = try daemon.connect()
        XCTAssertEqual(try other.request("ping"), ["OK"])
        // Answered while the song still waits on the share (its request takes 15 s to time out).
        XCTAssertNil(try other.request("status").first { $0.hasPrefix("error:") }, "the core loop never waits for the share")
        XCTAssertTrue(waitUntil(timeout: 180) { (try? other.request("status"))?.contains { $0.hasPrefix("error:") && $0.contains("nas") } == true },
            "\((try? other.request("status")) ?? [])")
        // One 15-second request timeout and the short deadline for a server out of reach, not a
        // minute of retries: what the fetch did, from its log line.
        let failure = try XCTUnwrap(FetchFailure(in: daemon.log), daemon.log)
        XCTAssertTrue(failure.reason.hasPrefix("past the 10 s deadline for a server out of reach: nas: "), failure.reason)
        XCTAssertLessThanOrEqual(failure.requests, 2, "given up after the request timeout, not after a minute of retries")
    }
}
