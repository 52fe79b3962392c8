import Foundation
import NimbusHarness
import XCTest

/// Cloud accounts added, signed in, signed out and removed at run time through the protocol,
/// as any client (the web page, a phone, a raw session) would: the daemon runs each provider's
/// flow against the project's emulators and real WebDAV servers, keeps the account across a
/// restart, and removing it leaves no file of it behind.
final class RuntimeAccountTests: XCTestCase {
    private var keep: [AnyObject] = []

    override func tearDown() {
        keep.removeAll()
        super.tearDown()
    }

    /// Two FLAC songs under Album/.
    private func drive() throws -> TemporaryDirectory {
        let drive = TemporaryDirectory("nimbus-runtime-drive")
        try AudioFixtures.writeTitledFLACAlbum(in: drive.path) { 44_100 * $0 }
        return drive
    }

    private func daemon() throws -> ServerProcess {
        let daemon = try ServerProcess(.nimbus)
        keep.append(daemon)
        return daemon
    }

    private static func quoted(_ text: String) -> String {
        "\"" + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
    }

    private func addCommand(_ name: String, _ type: String, _ settings: [(key: String, value: String)]) -> String {
        (["addaccount", Self.quoted(name), type] + settings.map { Self.quoted($0.key) + " " + Self.quoted($0.value) }).joined(separator: " ")
    }

    /// The `listaccounts` record of `name`.
    private func record(_ client: LineClient, _ name: String) throws -> [String: String] {
        var records: [[String: String]] = []
        for line in try client.request("listaccounts").dropLast() {
            guard let colon = line.range(of: ": ") else { continue }
            let (key, value) = (String(line[..<colon.lowerBound]), String(line[colon.upperBound...]))
            if key == "account" { records.append([:]) }
            records[records.count - 1][key] = value
        }
        return records.first { $0["account"] == name } ?? [:]
    }

    private func fields(_ lines: [String]) -> [String: String] {
        Dictionary(lines.compactMap { line in line.range(of: ": ").map { (String(line[..<$0.lowerBound]), String(line[$0.upperBound...])) } },
            uniquingKeysWith: { first, _ in first })
    }

    /// Every file under `directory` whose path mentions `word`.
    private func files(under directory: String, mentioning word: String) -> [String] {
        (FileManager.default.enumerator(atPath: directory)?.allObjects as? [String] ?? []).filter { $0.contains(word) }
    }

    private func dataFiles(_ daemon: ServerProcess) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: daemon.directory.file("cache/ranges"))) ?? []).filter { $0.hasSuffix(".data") }
    }

    func testDeviceSignInAddsTheAccountKeepsItAcrossARestartAndRemovingItLeavesNothing() throws {
        let share = try drive()
        let emulator = try CloudEmulator(provider: "yandex-disk", root: share.path)
        keep += [share, emulator]
        let daemon = try daemon()
        let client = try daemon.connect()

        let types = try client.request("accounttypes")
        XCTAssertTrue(types.joined(separator: "\n").contains("type: yandex-disk\nsignin: device\nneeds: client_id\nneeds: client_secret"), "\(types)")
        XCTAssertTrue(types.joined(separator: "\n").contains("type: nextcloud\nsignin: browser\nneeds: url"), "\(types)")

        XCTAssertEqual(try client.request(addCommand("yadisk", "yandex-disk", emulator.signInSettings)), ["OK"])
        var shown = try record(client, "yadisk")
        XCTAssertEqual(shown["origin"], "client")
        XCTAssertEqual(shown["signin"], "needed")

        let watcher = try daemon.connect()
        try watcher.send("idle account\n")
        try emulator.setDeviceSteps(["pending", "approve"])
        let prompt = fields(try client.request("signin yadisk"))
        XCTAssertEqual(prompt["method"], "device")
        XCTAssertEqual(prompt["user_code"], "WXYZ-1234")
        XCTAssertEqual(prompt["verification_url"], emulator.api + "/device")
        XCTAssertEqual(prompt["expires_in"], "300")
        XCTAssertEqual(try watcher.readResponse(), ["changed: account", "OK"], "a client waiting on the sign-in hears it")
        try daemon.waitForDatabase(songs: 2, timeout: 30)
        shown = try record(client, "yadisk")
        XCTAssertEqual(shown["signin"], "signed in")
        XCTAssertEqual(emulator.stats["early_polls"] as? Int, 0, "polled faster than the interval")
        let tokenFile = daemon.directory.file("accounts/yadisk.token")
        XCTAssertEqual((try FileManager.default.attributesOfItem(atPath: tokenFile))[.posixPermissions] as? Int, 0o600)
        XCTAssertEqual((try FileManager.default.attributesOfItem(atPath: daemon.directory.file("state.accounts")))[.posixPermissions] as? Int, 0o600)
        XCTAssertTrue(try client.request("lsinfo yadisk/Album").contains("file: yadisk/Album/01.flac"))

        // Played once, so bytes of it are in the cache; pinned, so a pin refers to it.
        XCTAssertEqual(try client.request("pin yadisk/Album"), ["OK"])
        XCTAssertTrue(waitUntil(timeout: 30) { self.dataFiles(daemon).count == 2 }, "the pin downloads both songs")

        try daemon.restart()
        let again = try daemon.connect()
        try daemon.waitForDatabase(songs: 2, timeout: 30)
        shown = try record(again, "yadisk")
        XCTAssertEqual(shown["origin"], "client", "kept across a restart")
        XCTAssertEqual(shown["signin"], "signed in")
        XCTAssertEqual(try again.request("removeaccount config"), ["ACK [50@0] {removeaccount} No such account: config"])

        XCTAssertEqual(try again.request("removeaccount yadisk"), ["OK"])
        try daemon.waitForDatabase(songs: 0, timeout: 30)
        XCTAssertEqual(try record(again, "yadisk"), [:])
        XCTAssertEqual(try again.request("lsinfo"), ["OK"])
        XCTAssertFalse(try again.request("listpins").contains { $0.contains("yadisk") }, "its pins are gone")
        XCTAssertEqual(files(under: daemon.directory.path, mentioning: "yadisk"), [], "no file of the account is left")
        XCTAssertEqual(dataFiles(daemon), [], "no cached byte of the account is left")
        let saved = try String(contentsOfFile: daemon.directory.file("state.accounts"), encoding: .utf8)
        XCTAssertFalse(saved.contains("yadisk"), saved)
        for secret in [emulator.clientSecret] { XCTAssertFalse(daemon.log.contains(secret)) }
    }

    /// A browser's visit to `url` (the person logging in): the status.
    private func visit(_ url: String) throws -> Int {
        let script = "import sys, urllib.request\nprint(urllib.request.urlopen(sys.argv[1]).status)"
        return Int(try runTool("/usr/bin/python3", ["-c", script, url]).trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
    }

    /// Nextcloud's Login Flow v2: the person logs in on the server's page, the daemon polls and
    /// receives an app password, then reads the files at /remote.php/dav/files/USER/ with it.
    func testNextcloudLoginFlowNeedsNoRegisteredApp() throws {
        try XCTSkipUnless(RcloneWebDAVServer.available, "rclone is not installed (scripts/install-deps)")
        let share = try drive()
        let server = try RcloneWebDAVServer(
            root: share.path, login: (user: "listener", password: "app-password-1"), basePath: "/remote.php/dav/files/listener")
        let emulator = try CloudEmulator(provider: "yandex-disk", root: share.path)
        keep += [share, server, emulator]
        try emulator.setNextcloudLogin(server: server.server, user: "listener", password: "app-password-1")
        let daemon = try daemon()
        let client = try daemon.connect()
        XCTAssertEqual(try client.request("addaccount cloud nextcloud url \(Self.quoted(emulator.api))"), ["OK"])
        let prompt = fields(try client.request("signin cloud"))
        XCTAssertEqual(prompt["method"], "browser")
        let login = try XCTUnwrap(prompt["verification_url"])
        XCTAssertTrue(login.hasPrefix(emulator.api + "/login/v2/flow/"), login)
        XCTAssertTrue(waitUntil(timeout: 10) { (emulator.stats["login_polls"] as? Int ?? 0) >= 1 }, "the daemon polls")
        XCTAssertEqual(try record(client, "cloud")["signin"], "waiting")
        XCTAssertEqual(try visit(login), 200)
        try daemon.waitForDatabase(songs: 2, timeout: 30)
        let shown = try record(client, "cloud")
        XCTAssertEqual(shown["signin"], "signed in")
        XCTAssertEqual(shown["user"], "listener")
        let saved = try String(contentsOfFile: daemon.directory.file("accounts/cloud.login"), encoding: .utf8)
        XCTAssertTrue(saved.contains("app-password-1"), "the app password is what the account uses")
        XCTAssertEqual((try FileManager.default.attributesOfItem(atPath: daemon.directory.file("accounts/cloud.login")))[.posixPermissions] as? Int, 0o600)
        XCTAssertFalse(daemon.log.contains("app-password-1"))
        XCTAssertFalse(try client.request("listaccounts").joined().contains("app-password-1"))
    }

    /// A WebDAV password is checked with the server before it is saved, and never logged.
    func testAWrongPasswordIsRefusedAndTheRightOneIsSavedButNeverShown() throws {
        try XCTSkipUnless(WebDAVServer.available, "nginx with dav-ext is not installed (scripts/install-deps)")
        let share = try drive()
        let server = try WebDAVServer(root: share.path)
        keep += [share, server]
        let daemon = try ServerProcess(.nimbus, config: "log_level \"verbose\"")
        keep.append(daemon)
        let client = try daemon.connect()
        XCTAssertEqual(try client.request("addaccount dav webdav url \(Self.quoted(server.url)) user \(server.user)"), ["OK"])
        XCTAssertEqual(try record(client, "dav")["signin"], "needed")
        XCTAssertEqual(fields(try client.request("signin dav"))["method"], "password")
        let refused = try client.request("signinpassword dav wrong-guess")
        XCTAssertEqual(refused.count, 1)
        XCTAssertTrue(refused[0].hasPrefix("ACK [3@0] {signinpassword} ") && refused[0].contains("refused the user \"listener\""), "\(refused)")
        XCTAssertFalse(FileManager.default.fileExists(atPath: daemon.directory.file("accounts/dav.password")))
        XCTAssertEqual(try client.request("signinpassword dav \(server.password)"), ["OK"])
        try daemon.waitForDatabase(songs: 2, timeout: 30)
        XCTAssertEqual(try record(client, "dav")["signin"], "signed in")
        XCTAssertTrue(daemon.log.contains("process command signinpassword \"dav\" \"********\""), "the password is masked")
        XCTAssertFalse(daemon.log.contains(server.password) || daemon.log.contains("wrong-guess"))
        XCTAssertFalse(try client.request("listaccounts").joined().contains(server.password))

        // Signed out: the password is forgotten and the share refuses the next listing.
        XCTAssertEqual(try client.request("signout dav"), ["OK"])
        XCTAssertFalse(FileManager.default.fileExists(atPath: daemon.directory.file("accounts/dav.password")))
        XCTAssertEqual(try record(client, "dav")["signin"], "needed")
    }

    /// Names, types, keys and values that cannot make an account are refused with a precise
    /// ACK and change nothing, nothing at all is written for them.
    func testBadAccountsAreRefusedAndChangeNothing() throws {
        let daemon = try daemon()
        let client = try daemon.connect()
        let long = String(repeating: "n", count: 10_000)
        let cases: [(String, String)] = [
            ("addaccount \"a/b\" webdav url http://h/", "ACK [2@0] {addaccount} Bad account name: \"a/b\" is not one folder name"),
            ("addaccount .. webdav url http://h/", "ACK [2@0] {addaccount} Bad account name: \"..\" is not one folder name"),
            ("addaccount .hidden webdav url http://h/", "ACK [2@0] {addaccount} Bad account name: \".hidden\" is not one folder name"),
            ("addaccount \(long.prefix(4000)) webdav url http://h/", "ACK [2@0] {addaccount} Bad account name: longer than 64 bytes"),
            // Longer than MPD's 8 KiB request line: dropped and answered (MPD closes the connection).
            ("addaccount \(long) webdav url http://h/", "ACK [2@0] {addaccount} Line too long"),
            ("addaccount \"a\u{01}b\" webdav url http://h/", "ACK [2@0] {addaccount} Bad account name: control characters"),
            ("addaccount x gopher url http://h/", "ACK [2@0] {addaccount} unknown account type \"gopher\""),
            ("addaccount x ftp url http://h/", "ACK [2@0] {addaccount} \"url\" must be an ftp:// or ftps:// address"),
            ("addaccount x smb url smb://u:secret@h/music", "ACK [2@0] {addaccount} the password goes to signinpassword, not into \"url\""),
            ("addaccount x webdav url http://h/ colour blue", "ACK [2@0] {addaccount} unknown setting \"colour\""),
            ("addaccount x webdav url http://h/ token_file /etc/passwd", "ACK [2@0] {addaccount} unknown setting \"token_file\""),
            ("addaccount x webdav url file:///etc/", "ACK [2@0] {addaccount} \"url\" must be an http:// or https:// address"),
            ("addaccount x webdav url", "ACK [2@0] {addaccount} Settings come in pairs: KEY VALUE"),
            ("addaccount x webdav", "ACK [2@0] {addaccount} a webdav account needs \"url\""),
            ("addaccount x yandex-disk client_id a", "ACK [2@0] {addaccount} a yandex-disk account needs \"client_secret\""),
            ("addaccount x webdav " + (0..<1000).map { "k\($0) v" }.joined(separator: " "), "ACK [2@0] {} Too many arguments"),
            ("signin nobody", "ACK [50@0] {signin} No such account: nobody"),
            ("removeaccount nobody", "ACK [50@0] {removeaccount} No such account: nobody"),
        ]
        for (command, expected) in cases {
            let answer = try client.request(command)
            XCTAssertEqual(answer.count, 1, command)
            XCTAssertTrue(answer.first?.hasPrefix(expected) == true, "\(command.prefix(80)) → \(answer)")
        }
        XCTAssertEqual(try client.request("listaccounts"), ["OK"])
        XCTAssertFalse(FileManager.default.fileExists(atPath: daemon.directory.file("state.accounts")), "nothing was saved")
        XCTAssertEqual(try client.request("addaccount x webdav url http://127.0.0.1:9/"), ["OK"])
        XCTAssertEqual(try client.request("addaccount x webdav url http://127.0.0.1:9/"), ["ACK [56@0] {addaccount} An account or folder named \"x\" exists already"])
        XCTAssertEqual(try client.request("signin x"), ["ACK [2@0] {signin} x needs no sign-in"])
        XCTAssertEqual(try client.request("ping"), ["OK"])
    }

    /// What the provider answers badly ends the sign-in with an ACK and a state, never a hang or
    /// a code full of control characters on someone's screen; one flow per account.
    func testProviderTroubleEndsTheSignInCleanly() throws {
        let share = try drive()
        let emulator = try CloudEmulator(provider: "onedrive", root: share.path)
        keep += [share, emulator]
        let daemon = try daemon()
        let client = try daemon.connect()
        XCTAssertEqual(try client.request(addCommand("od", "onedrive", emulator.signInSettings)), ["OK"])
        for kind in ["array", "huge", "control"] {
            try emulator.setDeviceAnswer(kind)
            let answer = try client.request("signin od")
            XCTAssertTrue(answer.count == 1 && answer[0].hasPrefix("ACK [52@0] {signin} "), "\(kind): \(answer)")
            XCTAssertNotEqual(try record(client, "od")["signin"], "waiting", kind)
        }
        try emulator.setDeviceAnswer("normal")

        // A second signin replaces the first: one flow polls.
        try emulator.setDeviceSteps(["pending"])
        XCTAssertEqual(fields(try client.request("signin od"))["method"], "device")
        XCTAssertEqual(fields(try client.request("signin od"))["method"], "device")
        let before = emulator.stats["polls"] as? Int ?? 0
        XCTAssertTrue(waitUntil(timeout: 10) { (emulator.stats["polls"] as? Int ?? 0) >= before + 3 })
        XCTAssertEqual(emulator.stats["early_polls"] as? Int, 0, "two flows polled at once")

        for (steps, state) in [(["deny"], "declined"), (["expire"], "expired")] {
            try emulator.setDeviceSteps(steps)
            XCTAssertEqual(fields(try client.request("signin od"))["method"], "device")
            XCTAssertTrue(waitUntil(timeout: 10) { (try? self.record(client, "od"))?["signin"] == state }, state)
            XCTAssertFalse(try client.request("status").contains { $0.contains(state) }, "a sign-in's end is a state, not a status error")
        }
        try emulator.setDeviceSteps(["pending"])
        XCTAssertEqual(fields(try client.request("signin od"))["method"], "device")
        XCTAssertEqual(try client.request("signincancel od"), ["OK"])
        XCTAssertEqual(try record(client, "od")["signin"], "cancelled")

        emulator.stop()
        let down = try client.request("signin od")
        XCTAssertTrue(down.count == 1 && down[0].hasPrefix("ACK [52@0] {signin} Cannot reach 127.0.0.1"), "\(down)")
        XCTAssertFalse(FileManager.default.fileExists(atPath: daemon.directory.file("accounts/od.token")))
    }

    /// `signout` as the download manager does it: downloads in progress stop and their bytes
    /// go; completed ones stay, and the token is forgotten.
    func testSignOutDropsPartialDownloadsAndKeepsCompletedOnes() throws {
        let share = TemporaryDirectory("nimbus-runtime-drive")
        try AudioFixtures.writeRampWAV(to: share.file("small.wav"), frames: 44_100)
        try FileManager.default.createDirectory(atPath: share.file("Big"), withIntermediateDirectories: true)
        try AudioFixtures.writeRampWAV(to: share.file("Big/long.wav"), frames: 600_000)
        let emulator = try CloudEmulator(provider: "yandex-disk", root: share.path)
        keep += [share, emulator]
        try emulator.setRate(bytesPerSecond: 200_000)
        let daemon = try daemon()
        let client = try daemon.connect()
        XCTAssertEqual(try client.request(addCommand("disk", "yandex-disk", emulator.signInSettings)), ["OK"])
        try emulator.setDeviceSteps(["approve"])
        XCTAssertEqual(fields(try client.request("signin disk"))["method"], "device")
        try daemon.waitForDatabase(songs: 2, timeout: 30)
        XCTAssertEqual(try client.request("pin disk/small.wav"), ["OK"])
        XCTAssertEqual(try client.request("pin disk/Big"), ["OK"])
        func pin(_ name: String) -> [String: String] {
            let lines = (try? client.request("listpins")) ?? []
            guard let start = lines.firstIndex(of: "pin: \(name)") else { return [:] }
            return fields(Array(lines[start...].prefix { $0 == "pin: \(name)" || !$0.hasPrefix("pin: ") }))
        }
        XCTAssertTrue(waitUntil(timeout: 30) { pin("disk/small.wav")["state"] == "completed" })
        XCTAssertTrue(waitUntil(timeout: 30) { Int(pin("disk/Big")["done"] ?? "0") ?? 0 > 100_000 })
        XCTAssertEqual(try client.request("signout disk"), ["OK"])
        XCTAssertTrue(waitUntil(timeout: 20) { pin("disk/Big")["state"] == "failed" }, "\(pin("disk/Big"))")
        XCTAssertEqual(pin("disk/Big")["done"], "0", "the partial download is dropped")
        XCTAssertEqual(pin("disk/small.wav")["state"], "completed", "a completed one stays")
        XCTAssertEqual(try record(client, "disk")["signin"], "needed")
        XCTAssertFalse(FileManager.default.fileExists(atPath: daemon.directory.file("accounts/disk.token")))
    }
}
