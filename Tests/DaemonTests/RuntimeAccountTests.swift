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
        try FileManager.default.createDirectory(atPath: drive.file("Album"), withIntermediateDirectories: true)
        for index in 1...2 {
            let wav = drive.file("Album/\(index).wav")
            try AudioFixtures.writeRampWAV(to: wav, frames: 44_100 * index)
            try runTool("flac", ["-s", "-f", "-T", "TITLE=Song \(index)", "-o", drive.file("Album/0\(index).flac"), wav])
            try FileManager.default.removeItem(atPath: wav)
        }
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
}
