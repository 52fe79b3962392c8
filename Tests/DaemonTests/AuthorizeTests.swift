import Foundation
import NimbusHarness
import XCTest

/// `nimbus authorize` end to end: the device sign-in of Yandex.Disk and OneDrive against the
/// project's emulators and a WebDAV password, the files it writes, a running daemon taking the
/// account up without a restart, and no secret in any output.
final class AuthorizeTests: XCTestCase {
    private var keep: [AnyObject] = []

    override func tearDown() {
        keep.removeAll()
        super.tearDown()
    }

    private var nimbus: String { ServerProcess.buildDirectory + "/nimbus" }

    private func drive() throws -> TemporaryDirectory {
        let drive = TemporaryDirectory("nimbus-signin-drive")
        try FileManager.default.createDirectory(atPath: drive.file("Album"), withIntermediateDirectories: true)
        for index in 1...2 {
            let wav = drive.file("Album/\(index).wav")
            try AudioFixtures.writeRampWAV(to: wav, frames: 44_100)
            try runTool("flac", ["-s", "-f", "-T", "TITLE=Song \(index)", "-o", drive.file("Album/0\(index).flac"), wav])
            try FileManager.default.removeItem(atPath: wav)
        }
        return drive
    }

    /// `nimbus ARGS` started with pipes for its standard input, output and error.
    private func launch(_ arguments: [String], environment: [String: String]) throws -> (Process, stdin: Pipe, output: Pipe, errors: Pipe) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: nimbus)
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        let output = Pipe(), errors = Pipe(), stdin = Pipe()
        process.standardOutput = output
        process.standardError = errors
        process.standardInput = stdin
        try process.run()
        return (process, stdin, output, errors)
    }

    /// Runs `nimbus ARGS` to its end: exit status, standard output and error.
    private func run(_ arguments: [String], input: String = "", environment: [String: String] = [:]) throws -> (Int32, String, String) {
        let (process, stdin, output, errors) = try launch(arguments, environment: environment)
        stdin.fileHandleForWriting.write(Data(input.utf8))
        try stdin.fileHandleForWriting.close()
        let out = output.fileHandleForReading.readDataToEndOfFile()
        let err = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: out, as: UTF8.self), String(decoding: err, as: UTF8.self))
    }

    private func mode(_ path: String) -> Int? {
        (try? FileManager.default.attributesOfItem(atPath: path))?[.posixPermissions] as? Int
    }

    private func signIn(_ provider: String, account: String, name: String) throws {
        let files = try drive()
        let emulator = try CloudEmulator(provider: provider, root: files.path)
        let secrets = TemporaryDirectory("nimbus-secrets")
        let tokenFile = secrets.file("new/\(account).token")
        let daemon = try ServerProcess(.nimbus, config: emulator.signInBlock(name: account, tokenFile: tokenFile))
        keep += [files, emulator, secrets, daemon]
        XCTAssertTrue(waitUntil(timeout: 5) { daemon.log.contains("sign-in needed — run: nimbus authorize \(account)") }, daemon.log)
        XCTAssertEqual(try daemon.connect().request("lsinfo"), ["OK"], "no token yet: nothing mounted")
        XCTAssertTrue(
            try daemon.connect().request("status").contains("error: \(account): sign-in needed — run: nimbus authorize \(account)"),
            "status says what to do")

        // The user takes a while and the provider asks to slow down once.
        try emulator.setDeviceSteps(["pending", "slow_down", "approve"])
        let (exit, output, errors) = try run(
            ["authorize", account, "--config", daemon.configPath], environment: ["MPD_HOST": "127.0.0.1", "MPD_PORT": "\(daemon.port)"])
        XCTAssertEqual(exit, 0, output + errors)
        XCTAssertTrue(output.contains("open \(emulator.api)/device on any device and enter the code WXYZ-1234"), output)
        XCTAssertTrue(output.contains("Signed in as \(name) — Nimbus can now read \(account)."), output)
        XCTAssertTrue(output.contains("nimbusd is reading \(account) now."), output)
        XCTAssertEqual(emulator.stats["early_polls"] as? Int, 0, "polled faster than the interval or ignored slow_down")
        XCTAssertEqual(emulator.stats["polls"] as? Int, 3)
        XCTAssertEqual(mode(tokenFile), 0o600)
        let token = try XCTUnwrap(
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: tokenFile))) as? [String: Any])
        let access = try XCTUnwrap(token["access_token"] as? String)
        let refresh = try XCTUnwrap(token["refresh_token"] as? String)
        XCTAssertEqual(token["client_id"] as? String, emulator.clientID)

        // The daemon mounted the account on `update` and plays from it.
        try daemon.waitForDatabase(songs: 2, timeout: 30)
        let client = try daemon.connect()
        XCTAssertFalse(try client.request("status").contains { $0.hasPrefix("error:") }, "signed in: no error any more")
        XCTAssertEqual(try client.request("add \(account)/Album/01.flac"), ["OK"])
        XCTAssertEqual(try client.request("play"), ["OK"])
        XCTAssertTrue(client.waitForStatus("state: play"), "the account's song does not play")
        XCTAssertTrue(waitUntil(timeout: 10) { (try? client.request("status"))?.contains { $0.hasPrefix("elapsed: 0.") && $0 != "elapsed: 0.000" } == true })

        let status = try client.request("status").joined(separator: "\n") + (try client.request("listmounts")).joined(separator: "\n")
        for secret in [access, refresh, emulator.clientSecret] {
            XCTAssertFalse(output.contains(secret) || errors.contains(secret) || daemon.log.contains(secret), "a secret was shown")
            XCTAssertFalse(status.contains(secret))
        }
    }

    func testYandexDiskDeviceSignIn() throws {
        try signIn("yandex-disk", account: "yadisk", name: "Test Listener (listener@yandex.ru)")
    }

    func testOneDriveDeviceSignIn() throws {
        try signIn("onedrive", account: "od", name: "Test Listener (listener@example.com)")
    }

    /// An emulator and a config naming it as `account`, with no daemon running; the token is
    /// to be written to `tokenFile`.
    private func withoutDaemon(
        _ provider: String, account: String
    ) throws -> (emulator: CloudEmulator, secrets: TemporaryDirectory, config: String, tokenFile: String) {
        let files = try drive()
        let emulator = try CloudEmulator(provider: provider, root: files.path)
        let secrets = TemporaryDirectory("nimbus-secrets")
        let tokenFile = secrets.file("\(account).token")
        let config = secrets.write("nimbusd.conf", emulator.signInBlock(name: account, tokenFile: tokenFile))
        keep += [files, emulator, secrets]
        return (emulator, secrets, config, tokenFile)
    }

    /// A declined consent, an expired code and an unknown app each end with one sentence,
    /// status 1, and no token file.
    func testFailuresSayWhatHappenedAndWriteNothing() throws {
        let (emulator, secrets, config, tokenFile) = try withoutDaemon("onedrive", account: "od")
        let offline = ["MPD_HOST": "127.0.0.1", "MPD_PORT": "9"]
        for (steps, message) in [
            (["deny"], "Access was declined on the provider's page; run nimbus authorize again to retry."),
            (["expire"], "The code expired before it was entered; run nimbus authorize again for a new one."),
        ] {
            try emulator.setDeviceSteps(steps)
            let (status, _, errors) = try run(["authorize", "od", "--config", config], environment: offline)
            XCTAssertEqual(status, 1)
            XCTAssertEqual(errors, "nimbus: \(message)\n")
            XCTAssertFalse(FileManager.default.fileExists(atPath: tokenFile))
        }
        let wrong = secrets.write("wrong.conf", emulator.signInBlock(name: "od", tokenFile: tokenFile).replacingOccurrences(of: emulator.clientID, with: "nobody"))
        let (status, _, errors) = try run(["authorize", "od", "--config", wrong], environment: offline)
        XCTAssertEqual(status, 1)
        XCTAssertTrue(errors.contains("The provider does not know this app"), errors)
        let (missing, _, unknown) = try run(["authorize", "nosuch", "--config", config], environment: offline)
        XCTAssertEqual(missing, 1)
        XCTAssertEqual(unknown, "nimbus: \(config) has no cloud account named \"nosuch\" (it has: od)\n")
    }

    /// Ctrl-C while waiting for the user ends with one sentence and writes nothing.
    func testCtrlCWhileWaitingChangesNothing() throws {
        let (emulator, _, config, tokenFile) = try withoutDaemon("yandex-disk", account: "yadisk")
        try emulator.setDeviceSteps(["pending"])
        let (process, stdin, output, errors) = try launch(
            ["authorize", "yadisk", "--config", config], environment: ["MPD_HOST": "127.0.0.1", "MPD_PORT": "9"])
        var text = ""
        while !text.contains("Waiting for you to confirm") {
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            text += String(decoding: chunk, as: UTF8.self)
        }
        XCTAssertTrue(waitUntil(timeout: 5) { (emulator.stats["polls"] as? Int ?? 0) >= 1 }, "it polls while waiting")
        kill(process.processIdentifier, SIGINT)
        try stdin.fileHandleForWriting.close()
        let err = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 1)
        XCTAssertTrue(err.hasSuffix("nimbus: Sign-in cancelled; nothing was changed.\n"), err)
        XCTAssertFalse(FileManager.default.fileExists(atPath: tokenFile))
    }

    /// A WebDAV share with a login: the password is read from stdin (without echo on a
    /// terminal), saved 0600 as the account's password file, and the daemon lists the share.
    func testWebDAVPasswordIsSavedAndTakenUp() throws {
        try XCTSkipUnless(WebDAVServer.available, "nginx with dav-ext is not installed (scripts/install-deps)")
        let files = try drive()
        let server = try WebDAVServer(root: files.path)
        let secrets = TemporaryDirectory("nimbus-secrets")
        let passwordFile = secrets.file("dav.password")
        let daemon = try ServerProcess(
            .nimbus,
            config: "cloud {\n name \"dav\"\n type \"webdav\"\n url \"\(server.url)\"\n user \"\(server.user)\"\n password_file \"\(passwordFile)\"\n}")
        keep += [files, server, secrets, daemon]
        let (status, output, errors) = try run(
            ["authorize", "dav", "--config", daemon.configPath], input: server.password + "\n",
            environment: ["MPD_HOST": "127.0.0.1", "MPD_PORT": "\(daemon.port)"])
        XCTAssertEqual(status, 0, output + errors)
        XCTAssertEqual(mode(passwordFile), 0o600)
        XCTAssertEqual(try String(contentsOfFile: passwordFile, encoding: .utf8), server.password + "\n")
        XCTAssertFalse(output.contains(server.password) || errors.contains(server.password))
        try daemon.waitForDatabase(songs: 2, timeout: 30)
        XCTAssertFalse(daemon.log.contains(server.password))
    }

    /// kill -9 at any moment of `nimbus authorize` leaves the old file or the new one, whole
    /// and 0600: never a mix, never an empty file. Long passwords widen the write, and the kills
    /// land at spread-out moments of it.
    func testKillNineWhileSavingLeavesTheOldFileOrTheNew() throws {
        let secrets = TemporaryDirectory("nimbus-secrets")
        keep.append(secrets)
        let passwordFile = secrets.file("dav.password")
        let config = secrets.write(
            "nimbusd.conf", "cloud {\n name \"dav\"\n type \"webdav\"\n url \"http://127.0.0.1:9/\"\n user \"me\"\n password_file \"\(passwordFile)\"\n}")
        let environment = ["MPD_HOST": "127.0.0.1", "MPD_PORT": "9"]
        let first = String(repeating: "a", count: 1 << 20)
        XCTAssertEqual(try run(["authorize", "dav", "--config", config], input: first + "\n", environment: environment).0, 0)
        var previous = first
        var replaced = 0
        for round in 0..<24 {
            let next = String(repeating: String(UnicodeScalar(UInt8(98 + round % 24))), count: 1 << 20)
            let (process, stdin, _, _) = try launch(["authorize", "dav", "--config", config], environment: environment)
            stdin.fileHandleForWriting.write(Data((next + "\n").utf8))
            try stdin.fileHandleForWriting.close()
            usleep(useconds_t(round * 1500))
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            let saved = try String(contentsOfFile: passwordFile, encoding: .utf8)
            XCTAssertTrue(saved == previous + "\n" || saved == next + "\n", "round \(round): a torn file of \(saved.utf8.count) bytes")
            XCTAssertEqual(mode(passwordFile), 0o600)
            if saved == next + "\n" {
                replaced += 1
                previous = next
            }
        }
        XCTAssertGreaterThan(replaced, 0, "no round got as far as saving: the kills all came too early to test anything")
    }

    // MARK: authorization code with PKCE

    /// A browser's request: status, Location and body, without following redirects.
    private func browse(_ url: String) throws -> (status: Int, location: String, body: String) {
        let script = """
            import sys, urllib.request, urllib.error
            class Stay(urllib.request.HTTPRedirectHandler):
                def redirect_request(self, *args): return None
            try:
                r = urllib.request.build_opener(Stay).open(sys.argv[1]); print(r.status); print(""); print(r.read().decode())
            except urllib.error.HTTPError as e:
                print(e.code); print(e.headers.get("Location", "")); print(e.read().decode())
            """
        let lines = try runTool("/usr/bin/python3", ["-c", script, url]).split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        return (Int(lines[0]) ?? 0, lines.count > 1 ? lines[1] : "", lines.dropFirst(2).joined(separator: "\n"))
    }

    /// `nimbus authorize` running, its output read as it comes; `answer` gets the address it
    /// printed and returns what to type (nil: nothing).
    private func interactive(
        _ arguments: [String], environment: [String: String], answer: (String) throws -> String?
    ) throws -> (Int32, String, String) {
        let (process, stdin, output, errors) = try launch(arguments, environment: environment)
        var text = ""
        // Until the address line is complete (the instructions after it may still be coming).
        while !text.components(separatedBy: "\n").dropLast().contains(where: { $0.hasPrefix("  http") }) {
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            text += String(decoding: chunk, as: UTF8.self)
        }
        let url = try XCTUnwrap(text.components(separatedBy: "\n").first { $0.hasPrefix("  http") }).trimmingCharacters(in: .whitespaces)
        if let typed = try answer(url) { stdin.fileHandleForWriting.write(Data((typed + "\n").utf8)) }
        try stdin.fileHandleForWriting.close()
        text += String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        let err = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return (process.terminationStatus, text, err)
    }

    private func codeSignIn(_ provider: String, account: String, answer: (String) throws -> String?) throws -> (Int32, String, String, ServerProcess, String) {
        let files = try drive()
        let emulator = try CloudEmulator(provider: provider, root: files.path)
        let secrets = TemporaryDirectory("nimbus-secrets")
        let tokenFile = secrets.file("\(account).token")
        let daemon = try ServerProcess(.nimbus, config: emulator.signInBlock(name: account, tokenFile: tokenFile))
        keep += [files, emulator, secrets, daemon]
        let (status, output, errors) = try interactive(
            ["authorize", account, "--config", daemon.configPath], environment: ["MPD_HOST": "127.0.0.1", "MPD_PORT": "\(daemon.port)"],
            answer: answer)
        return (status, output, errors, daemon, tokenFile)
    }

    /// Dropbox shows the code; the user pastes it back.
    func testDropboxCodeIsPastedBack() throws {
        let (status, output, errors, daemon, tokenFile) = try codeSignIn("dropbox", account: "box") { url in
            XCTAssertTrue(url.contains("code_challenge_method=S256") && url.contains("token_access_type=offline"), url)
            let page = try self.browse(url)
            XCTAssertEqual(page.status, 200)
            return String(try XCTUnwrap(page.body.components(separatedBy: ": ").last).trimmingCharacters(in: .whitespacesAndNewlines))
        }
        XCTAssertEqual(status, 0, output + errors)
        XCTAssertTrue(output.contains("Signed in as Test Listener (listener@example.com) — Nimbus can now read box."), output)
        XCTAssertEqual(mode(tokenFile), 0o600)
        try daemon.waitForDatabase(songs: 2, timeout: 30)
    }

    /// Google comes back to the loopback address by itself when the browser is on this box.
    func testGoogleDriveLoopbackRedirect() throws {
        let (status, output, errors, daemon, _) = try codeSignIn("google-drive", account: "gd") { url in
            XCTAssertTrue(url.contains("redirect_uri=http%3A%2F%2F127.0.0.1%3A") && url.contains("access_type=offline"), url)
            let consent = try self.browse(url)
            XCTAssertEqual(consent.status, 302)
            XCTAssertEqual(try self.browse(consent.location).status, 200, "the loopback page")
            return nil
        }
        XCTAssertEqual(status, 0, output + errors)
        XCTAssertTrue(output.contains("Signed in as Test Listener (listener@example.com) — Nimbus can now read gd."), output)
        try daemon.waitForDatabase(songs: 2, timeout: 30)
    }

    /// On another device the redirect never arrives: the address pasted from the browser
    /// works, and one from another sign-in (a different state) is refused.
    func testGoogleDrivePastedAddressAndAWrongState() throws {
        let (status, output, errors, _, _) = try codeSignIn("google-drive", account: "gd") { url in
            try self.browse(url).location
        }
        XCTAssertEqual(status, 0, output + errors)
        let (refused, _, message, _, tokenFile) = try codeSignIn("google-drive", account: "gd2") { url in
            let location = try self.browse(url).location
            return location.replacingOccurrences(of: "state=", with: "state=x")
        }
        XCTAssertEqual(refused, 1)
        XCTAssertTrue(message.contains("belongs to another sign-in"), message)
        XCTAssertFalse(FileManager.default.fileExists(atPath: tokenFile))
    }
}
