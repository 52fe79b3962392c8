import CSQLite
import Foundation
import NimbusHarness
import XCTest

/// What a person running the box sees: damaged files named in the log (and left alone),
/// leftovers of interrupted writes removed, stickers in the file after a shutdown, log lines
/// worth reading.
final class OperationsTests: XCTestCase {
    private var keep: [AnyObject] = []

    override func tearDown() {
        keep.removeAll()
        super.tearDown()
    }

    /// A daemon over one song whose state directory is prepared by `prepare` before it starts.
    private func daemon(config: String = "", _ prepare: (TemporaryDirectory) throws -> Void = { _ in }) throws -> ServerProcess {
        let music = TemporaryDirectory("nimbus-ops")
        try AudioFixtures.writeSineWAV(to: music.file("a.wav"), frames: 22_050, frequency: 500)
        let daemon = try ServerProcess(.nimbus, config: config, musicDirectory: music.path, launchNow: false)
        keep += [music, daemon]
        try prepare(daemon.directory)
        try daemon.start()
        try daemon.waitForDatabase(songs: 1)
        return daemon
    }

    func testDamagedStateFilesAreNamedKeptAndCopied() throws {
        let cases: [(String, [UInt8], String)] = [
            ("empty", [], "the file is empty"),
            ("binary", [0x00, 0x01, 0xFF, 0x10] + Array("state: play\n".utf8), "line 1 (binary data)"),
            ("not UTF-8", Array("state: play\ncurrent: 0\n".utf8) + [0xC3, 0x28, 0x0A], "line 3 (not valid UTF-8)"),
            ("garbled", Array("state: play\nthis is not a state line\n".utf8), "line 2"),
            ("truncated", Array("state: play\nplaylist_begin\n0:a.wav\n".utf8), "ends inside the queue"),
        ]
        for (name, bytes, reason) in cases {
            let daemon = try daemon { directory in
                try Data(bytes).write(to: URL(fileURLWithPath: directory.file("state")))
            }
            XCTAssertTrue(waitUntil(timeout: 5) { daemon.log.contains("unreadable") }, "\(name): \(daemon.log)")
            XCTAssertTrue(daemon.log.contains("state file \(daemon.directory.file("state")) unreadable"), "\(name): \(daemon.log)")
            XCTAssertTrue(daemon.log.contains(reason), "\(name): \(daemon.log)")
            // Left as it was until the first save, which keeps a copy first.
            XCTAssertEqual(try? Array(Data(contentsOf: URL(fileURLWithPath: daemon.directory.file("state")))), bytes, name)
            XCTAssertEqual(try daemon.connect().request("repeat 1"), ["OK"])
            XCTAssertTrue(waitUntil(timeout: 5) { FileManager.default.fileExists(atPath: daemon.directory.file("state.corrupt")) }, name)
            XCTAssertEqual(try Array(Data(contentsOf: URL(fileURLWithPath: daemon.directory.file("state.corrupt")))), bytes, name)
        }
    }

    func testABrokenStickerDatabaseIsLoggedShownAndLeftAlone() throws {
        let garbage = Array(repeating: UInt8(0x5A), count: 8192)
        let daemon = try daemon { directory in
            try Data(garbage).write(to: URL(fileURLWithPath: directory.file("sticker.sql")))
        }
        XCTAssertTrue(daemon.log.contains("is not a database"), daemon.log)
        XCTAssertTrue(daemon.log.contains("stickers disabled until it is repaired"), daemon.log)
        let client = try daemon.connect()
        // Not a playback error: `status` stays as MPD's, the sticker commands say why they cannot work.
        XCTAssertNil(try client.request("status").first { $0.hasPrefix("error:") })
        XCTAssertEqual(try client.request("sticker get song a.wav rating"), ["ACK [5@0] {sticker} sticker database is disabled"])
        XCTAssertEqual(try Array(Data(contentsOf: URL(fileURLWithPath: daemon.directory.file("sticker.sql")))), garbage)
    }

    func testAPlaylistLineThatIsNotUTF8IsSkippedAndLogged() throws {
        let daemon = try daemon { directory in
            try Data(Array("a.wav\n".utf8) + [0xFF, 0xFE, 0x0A] + Array("a.wav\n".utf8))
                .write(to: URL(fileURLWithPath: directory.file("playlists/mix.m3u")))
        }
        XCTAssertEqual(try daemon.connect().request("listplaylist mix"), ["file: a.wav", "file: a.wav", "OK"])
        XCTAssertTrue(daemon.log.contains("mix.m3u line 2 is not valid UTF-8 text; skipped"), daemon.log)
    }

    /// What a kill -9 during a write leaves (`NAME.tmp.PID` of a process that is gone) is
    /// removed at start; the files themselves stay.
    func testLeftoversOfInterruptedWritesAreRemovedAtStart() throws {
        let dead = Int32(4_000_000)
        let daemon = try daemon { directory in
            _ = directory.write("playlists/mix.m3u", "a.wav\n")
            _ = directory.write("playlists/mix.m3u.tmp.\(dead)", "a.w")
            _ = directory.write("state.tmp.\(dead)", "sta")
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: daemon.directory.file("playlists/mix.m3u.tmp.\(dead)")))
        XCTAssertFalse(FileManager.default.fileExists(atPath: daemon.directory.file("state.tmp.\(dead)")))
        XCTAssertTrue(FileManager.default.fileExists(atPath: daemon.directory.file("playlists/mix.m3u")))
    }

    /// After a clean shutdown the sticker file alone holds every sticker (no `-wal` needed),
    /// as users who copy `sticker_file` expect.
    func testStickersAreInTheFileAfterAShutdown() throws {
        let daemon = try daemon()
        XCTAssertEqual(try daemon.connect().request("sticker set song a.wav rating 5"), ["OK"])
        XCTAssertEqual(daemon.stop(), 0)
        let copy = TemporaryDirectory("nimbus-sticker-copy")
        try FileManager.default.copyItem(atPath: daemon.directory.file("sticker.sql"), toPath: copy.file("sticker.sql"))
        var db: OpaquePointer?
        XCTAssertEqual(sqlite3_open(copy.file("sticker.sql"), &db), SQLITE_OK)
        defer { sqlite3_close(db) }
        var statement: OpaquePointer?
        XCTAssertEqual(sqlite3_prepare_v2(db, "SELECT value FROM sticker WHERE uri='a.wav'", -1, &statement, nil), SQLITE_OK)
        defer { sqlite3_finalize(statement) }
        XCTAssertEqual(sqlite3_step(statement), SQLITE_ROW)
        XCTAssertEqual(String(cString: sqlite3_column_text(statement, 0)), "5")
    }

    func testTheLogNamesClientsCommandsFailuresAndWhereItListens() throws {
        let daemon = try daemon(config: "log_level \"verbose\"")
        XCTAssertTrue(daemon.log.contains("ready on 127.0.0.1:\(daemon.port), \(daemon.socketPath)"), daemon.log)
        let client = try daemon.connect()
        XCTAssertEqual(try client.request("status").last, "OK")
        XCTAssertEqual(try client.request("password \"hunter2\"").last, "ACK [3@0] {password} incorrect password")
        XCTAssertEqual(try client.request("add \"missing.flac\"").last, "ACK [50@0] {add} No such directory")
        XCTAssertTrue(waitUntil(timeout: 5) { daemon.log.contains("process command add \"missing.flac\"") }, daemon.log)
        // MPD 0.24's wording: the client named by its address on every line.
        let added = try XCTUnwrap(daemon.log.range(of: #"client: \[127\.0\.0\.1:\d+\] process command add"#, options: .regularExpression))
        let name = String(daemon.log[added].dropFirst("client: ".count).prefix { $0 != " " })
        XCTAssertTrue(daemon.log.contains("client: \(name) client connected"), daemon.log)
        XCTAssertTrue(daemon.log.contains("client: \(name) process command status"), daemon.log)
        let local = try LineClient.connected(.unix(path: daemon.socketPath)).0
        XCTAssertEqual(try local.request("ping"), ["OK"])
        XCTAssertTrue(waitUntil(timeout: 5) { daemon.log.contains("] client connected") && daemon.log.contains("client: [pid=") }, daemon.log)
        XCTAssertEqual(try client.sendAndReadUntilClosed("close\n"), "")
        XCTAssertTrue(waitUntil(timeout: 5) { daemon.log.contains("client: \(name) disconnected") }, daemon.log)
        XCTAssertFalse(daemon.log.contains("hunter2"), "a password in the log")
    }
}
