import Foundation
import NimbusHarness
import XCTest

/// The `nimbus` CLI as a client of the daemon's sign-in, run from another working directory
/// over TCP as it would run on a laptop: `accounts add`, then `authorize` showing the device
/// code (Yandex.Disk, OneDrive), the address (Dropbox, Google Drive) or asking for a WebDAV
/// password, while the daemon runs the flow against the project's emulators; Ctrl-C cancels
/// it in the daemon; no secret in any output.
final class AuthorizeTests: XCTestCase {
    private var keep: [AnyObject] = []

    override func tearDown() {
        keep.removeAll()
        super.tearDown()
    }

    private var nimbus: String { ServerProcess.buildDirectory + "/nimbus" }

    private func drive() throws -> TemporaryDirectory {
        let drive = TemporaryDirectory("nimbus-signin-drive")
        try AudioFixtures.writeTitledFLACAlbum(in: drive.path)
        return drive
    }

    /// Where the CLI runs: not the repository, not the daemon's directory.
    private let elsewhere = TemporaryDirectory("nimbus-laptop")

    /// `nimbus ARGS` started with pipes for its standard input, output and error, from
    /// another working directory.
    private func launch(_ arguments: [String], environment: [String: String]) throws -> (Process, stdin: Pipe, output: Pipe, errors: Pipe) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: nimbus)
        process.currentDirectoryURL = URL(fileURLWithPath: elsewhere.path)
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

    /// `--host 127.0.0.1 --port P`: the daemon found over TCP, no config file.
    private func at(_ daemon: ServerProcess) -> [String] { ["--host", "127.0.0.1", "--port", "\(daemon.port)", "--config", "/nonexistent"] }

    /// A daemon without accounts, the emulator, and the account added by `nimbus accounts add`.
    private func added(_ provider: String, account: String, settings: [(key: String, value: String)]? = nil) throws -> (ServerProcess, CloudEmulator) {
        let files = try drive()
        let emulator = try CloudEmulator(provider: provider, root: files.path)
        let daemon = try ServerProcess(.nimbus)
        keep += [files, emulator, daemon]
        let options = (settings ?? emulator.signInSettings).flatMap { ["--" + $0.key, $0.value] }
        let (status, output, errors) = try run(["accounts", "add", account, provider] + options + at(daemon))
        XCTAssertEqual(status, 0, output + errors)
        XCTAssertEqual(output, "Added \(account). Sign in with: nimbus authorize \(account)\n")
        return (daemon, emulator)
    }

    private func signIn(_ provider: String, account: String, name: String) throws {
        let (daemon, emulator) = try added(provider, account: account)
        XCTAssertEqual(try daemon.connect().request("lsinfo"), ["OK"], "no token yet: nothing mounted")
        let listed = try run(["accounts"] + at(daemon)).1
        XCTAssertTrue(listed.contains("\(account) (\(provider), added by a client): sign-in needed — run: nimbus authorize \(account)"), listed)

        // The user takes a while and the provider asks to slow down once.
        try emulator.setDeviceSteps(["pending", "slow_down", "approve"])
        let (exit, output, errors) = try run(["authorize", account] + at(daemon))
        XCTAssertEqual(exit, 0, output + errors)
        XCTAssertTrue(output.contains("open \(emulator.api)/device on any device and enter the code WXYZ-1234"), output)
        XCTAssertTrue(output.contains("Signed in as \(name) — Nimbus can now read \(account)."), output)
        XCTAssertEqual(emulator.stats["early_polls"] as? Int, 0, "polled faster than the interval or ignored slow_down")
        XCTAssertEqual(emulator.stats["polls"] as? Int, 3)
        let tokenFile = daemon.directory.file("accounts/\(account).token")
        XCTAssertEqual(mode(tokenFile), 0o600)
        let token = try XCTUnwrap(
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: tokenFile))) as? [String: Any])
        let access = try XCTUnwrap(token["access_token"] as? String)
        let refresh = try XCTUnwrap(token["refresh_token"] as? String)
        XCTAssertEqual(token["client_id"] as? String, emulator.clientID)

        // The daemon mounted the account by itself and plays from it.
        try daemon.waitForDatabase(songs: 2, timeout: 30)
        let client = try daemon.connect()
        XCTAssertFalse(try client.request("status").contains { $0.hasPrefix("error:") }, "signed in: no error any more")
        XCTAssertEqual(try client.request("add \(account)/Album/01.flac"), ["OK"])
        XCTAssertEqual(try client.request("play"), ["OK"])
        XCTAssertTrue(client.waitForStatus("state: play"), "the account's song does not play")
        XCTAssertTrue(waitUntil(timeout: 10) { (try? client.request("status"))?.contains { $0.hasPrefix("elapsed: 0.") && $0 != "elapsed: 0.000" } == true })

        let status = try client.request("status").joined(separator: "\n") + (try client.request("listaccounts")).joined(separator: "\n")
        for secret in [access, refresh, emulator.clientSecret] {
            XCTAssertFalse(output.contains(secret) || errors.contains(secret) || daemon.log.contains(secret), "a secret was shown")
            XCTAssertFalse(status.contains(secret))
        }

        // Signed out from the CLI: the token is gone, the account needs a sign-in again.
        let (out, said, _) = try run(["signout", account] + at(daemon))
        XCTAssertEqual(out, 0)
        XCTAssertEqual(said, "Signed out of \(account).\n")
        XCTAssertFalse(FileManager.default.fileExists(atPath: tokenFile))
        let (removed, gone, _) = try run(["accounts", "remove", account] + at(daemon))
        XCTAssertEqual(removed, 0)
        XCTAssertTrue(gone.hasPrefix("Removed \(account)"), gone)
        try daemon.waitForDatabase(songs: 0, timeout: 30)
    }

    func testYandexDiskDeviceSignIn() throws {
        try signIn("yandex-disk", account: "yadisk", name: "Test Listener (listener@yandex.ru)")
    }

    func testOneDriveDeviceSignIn() throws {
        try signIn("onedrive", account: "od", name: "Test Listener (listener@example.com)")
    }

    /// A declined consent, an expired code and an unknown app each end with one sentence,
    /// status 1, and no token file.
    func testFailuresSayWhatHappenedAndWriteNothing() throws {
        let (daemon, emulator) = try added("onedrive", account: "od")
        let tokenFile = daemon.directory.file("accounts/od.token")
        for (steps, message) in [
            (["deny"], "Access was declined on the provider's page; run nimbus authorize again to retry."),
            (["expire"], "The code expired before it was entered; run nimbus authorize again for a new one."),
        ] {
            try emulator.setDeviceSteps(steps)
            let (status, _, errors) = try run(["authorize", "od"] + at(daemon))
            XCTAssertEqual(status, 1)
            XCTAssertEqual(errors, "nimbus: \(message)\n")
            XCTAssertFalse(FileManager.default.fileExists(atPath: tokenFile))
        }
        let wrong = emulator.signInSettings.map { $0.key == "client_id" ? (key: "client_id", value: "nobody") : $0 }
        XCTAssertEqual(try run(["accounts", "add", "od2", "onedrive"] + wrong.flatMap { ["--" + $0.key, $0.value] } + at(daemon)).0, 0)
        let (status, _, errors) = try run(["authorize", "od2"] + at(daemon))
        XCTAssertEqual(status, 1)
        XCTAssertTrue(errors.contains("The provider does not know this app"), errors)
        let (missing, _, unknown) = try run(["authorize", "nosuch"] + at(daemon))
        XCTAssertEqual(missing, 1)
        XCTAssertEqual(unknown, "nimbus: cannot start the sign-in: No such account: nosuch\n")
        let (down, _, why) = try run(["authorize", "od", "--host", "127.0.0.1", "--port", "9"])
        XCTAssertEqual(down, 1)
        XCTAssertTrue(why.hasPrefix("nimbus: nimbusd is not running at 127.0.0.1:9"), why)
    }

    /// Ctrl-C while waiting for the person cancels the flow in the daemon and writes nothing.
    func testCtrlCWhileWaitingCancelsTheFlowInTheDaemon() throws {
        let (daemon, emulator) = try added("yandex-disk", account: "yadisk")
        try emulator.setDeviceSteps(["pending"])
        let (process, stdin, output, errors) = try launch(["authorize", "yadisk"] + at(daemon), environment: [:])
        var text = ""
        while !text.contains("Waiting for you to confirm") {
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            text += String(decoding: chunk, as: UTF8.self)
        }
        XCTAssertTrue(waitUntil(timeout: 5) { (emulator.stats["polls"] as? Int ?? 0) >= 1 }, "the daemon polls while the CLI waits")
        kill(process.processIdentifier, SIGINT)
        try stdin.fileHandleForWriting.close()
        let err = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 1)
        XCTAssertTrue(err.hasSuffix("nimbus: Sign-in cancelled; nothing was changed.\n"), err)
        XCTAssertFalse(FileManager.default.fileExists(atPath: daemon.directory.file("accounts/yadisk.token")))
        XCTAssertTrue(try daemon.connect().request("listaccounts").contains("signin: cancelled"))
        let polls = emulator.stats["polls"] as? Int ?? 0
        XCTAssertTrue(try daemon.connect().request("ping") == ["OK"])
        XCTAssertTrue(waitUntil(timeout: 3) { (emulator.stats["polls"] as? Int ?? 0) <= polls + 1 }, "the daemon stopped polling")
    }

    /// A WebDAV share with a login: the password is read from stdin (without echo on a
    /// terminal), checked and saved 0600 by the daemon, which lists the share.
    func testWebDAVPasswordIsSavedAndTakenUp() throws {
        try XCTSkipUnless(WebDAVServer.available, "nginx with dav-ext is not installed (scripts/install-deps)")
        let files = try drive()
        let server = try WebDAVServer(root: files.path)
        let daemon = try ServerProcess(.nimbus)
        keep += [files, server, daemon]
        XCTAssertEqual(try run(["accounts", "add", "dav", "webdav", "--url", server.url, "--user", server.user] + at(daemon)).0, 0)
        let (wrong, _, refused) = try run(["authorize", "dav"] + at(daemon), input: "not-it\n")
        XCTAssertEqual(wrong, 1)
        XCTAssertTrue(refused.contains("refused the user \"listener\""), refused)
        let (status, output, errors) = try run(["authorize", "dav"] + at(daemon), input: server.password + "\n")
        XCTAssertEqual(status, 0, output + errors)
        let passwordFile = daemon.directory.file("accounts/dav.password")
        XCTAssertEqual(mode(passwordFile), 0o600)
        XCTAssertEqual(try String(contentsOfFile: passwordFile, encoding: .utf8), server.password + "\n")
        XCTAssertFalse(output.contains(server.password) || errors.contains(server.password))
        try daemon.waitForDatabase(songs: 2, timeout: 30)
        XCTAssertFalse(daemon.log.contains(server.password))
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
        let (daemon, _) = try added(provider, account: account)
        let (status, output, errors) = try interactive(["authorize", account] + at(daemon), environment: [:], answer: answer)
        return (status, output, errors, daemon, daemon.directory.file("accounts/\(account).token"))
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
