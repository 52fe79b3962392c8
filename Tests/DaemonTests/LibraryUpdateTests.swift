import Foundation
import Glibc
import NimbusHarness
import XCTest

/// The database as a process sees it: persistence, incremental updates, crashes, bad files.
final class LibraryUpdateTests: XCTestCase {
    private func daemon(_ music: String, songs: Int, config: String = "") throws -> ServerProcess {
        let daemon = try ServerProcess(.nimbus, config: "log_level \"verbose\"\n" + config, musicDirectory: music)
        try daemon.waitForDatabase(songs: songs)
        return daemon
    }

    func testDatabaseSurvivesARestartWithoutRescanning() throws {
        let work = TemporaryDirectory()
        let daemon = try self.daemon(try Fixtures.freshLibrary(in: work.path), songs: 12)
        let before = try daemon.connect().request("listallinfo")
        try daemon.restart()
        XCTAssertEqual(try daemon.connect().request("listallinfo"), before)
        XCTAssertEqual(daemon.log.components(separatedBy: "update job 1 started").count, 2, "only the first start scanned")
        XCTAssertTrue(daemon.log.contains("database loaded: 12 songs"), daemon.log)
        // `Added` is when a song entered the database: a rescan of unchanged files keeps it.
        let added = before.filter { $0.hasPrefix("Added: ") }
        XCTAssertEqual(added.count, 12)
        let client = try daemon.connect()
        try client.send("idle update\n")
        XCTAssertEqual(try daemon.connect().request("rescan"), ["updating_db: 1", "OK"])
        XCTAssertEqual(try client.readResponse(), ["changed: update", "OK"])
        XCTAssertTrue(waitUntil { (try? client.request("status"))?.contains { $0.hasPrefix("updating_db") } == false })
        XCTAssertEqual(try client.request("listallinfo").filter { $0.hasPrefix("Added: ") }, added)
    }

    func testIncrementalUpdateSeesChangedAddedRemovedAndRenamedFiles() throws {
        let work = TemporaryDirectory()
        let music = try Fixtures.freshLibrary(in: work.path)
        let daemon = try self.daemon(music, songs: 12)
        let watcher = try daemon.connect()

        // A no-change update raises only `update`.
        try watcher.send("idle database update\n")
        XCTAssertEqual(try daemon.connect().request("update"), ["updating_db: 2", "OK"])
        XCTAssertEqual(try watcher.readResponse(), ["changed: update", "OK"])
        try watcher.send("idle database\n")
        XCTAssertTrue(try watcher.isQuiet(for: 0.3))
        XCTAssertEqual(try watcher.request("noidle"), ["OK"])

        let dawn = music + "/Alpha Band/First Light/01 - Dawn.flac"
        try runTool("metaflac", ["--remove-tag=TITLE", "--set-tag=TITLE=Sunrise", dawn])
        utimes(dawn, nil)
        try FileManager.default.copyItem(atPath: music + "/untagged.wav", toPath: music + "/Beta/bonus.wav")
        try FileManager.default.removeItem(atPath: music + "/Alpha Band/Second Wind/02 - Café.ogg")
        try FileManager.default.moveItem(atPath: music + "/Various", toPath: music + "/Misc")

        try watcher.send("idle database\n")
        XCTAssertEqual(try daemon.connect().request("update"), ["updating_db: 3", "OK"])
        XCTAssertEqual(try watcher.readResponse(), ["changed: database", "OK"])
        try daemon.waitForDatabase(songs: 12)
        let client = try daemon.connect()
        XCTAssertEqual(try client.request("find title Sunrise").first, "file: Alpha Band/First Light/01 - Dawn.flac")
        XCTAssertEqual(try client.request("count title Dawn"), ["songs: 1", "playtime: 3", "OK"], "only the truncated copy")
        XCTAssertEqual(try client.request("lsinfo Beta/bonus.wav").first, "file: Beta/bonus.wav")
        XCTAssertEqual(try client.request("find title \"Café Crème\""), ["OK"])
        XCTAssertEqual(try client.request("lsinfo Various"), ["ACK [50@0] {lsinfo} No such directory"])
        XCTAssertEqual(try client.request("listall Misc").count, 5)
    }

    func testUpdatingOneFileOrDirectory() throws {
        let work = TemporaryDirectory()
        let music = try Fixtures.freshLibrary(in: work.path)
        let daemon = try self.daemon(music, songs: 12)
        try FileManager.default.copyItem(atPath: music + "/untagged.wav", toPath: music + "/Beta/Beta Sides/extra.wav")
        try FileManager.default.copyItem(atPath: music + "/untagged.wav", toPath: music + "/new.wav")
        XCTAssertEqual(try daemon.connect().request("update \"Beta/Beta Sides/extra.wav\""), ["updating_db: 2", "OK"])
        try daemon.waitForDatabase(songs: 13)
        XCTAssertEqual(try daemon.connect().request("lsinfo new.wav"), ["ACK [50@0] {lsinfo} No such directory"], "outside the updated path")
        try FileManager.default.removeItem(atPath: music + "/Beta/Beta Sides/extra.wav")
        XCTAssertEqual(try daemon.connect().request("update Beta"), ["updating_db: 3", "OK"])
        try daemon.waitForDatabase(songs: 12)
        XCTAssertEqual(try daemon.connect().request("update ../x"), ["ACK [2@0] {update} Malformed path"])
    }

    func testKillDuringAnUpdateLeavesALoadableDatabase() throws {
        let work = TemporaryDirectory()
        let music = try Fixtures.freshLibrary(in: work.path)
        let source = music + "/Alpha Band/First Light/02 - Noon.mp3"
        for album in 0..<20 {
            let folder = music + "/Bulk/Album \(album)"
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            for track in 0..<20 { try FileManager.default.copyItem(atPath: source, toPath: folder + "/\(track).mp3") }
        }
        let daemon = try self.daemon(music, songs: 412)
        for round in 0..<3 {
            XCTAssertEqual(try daemon.connect().request("rescan").last, "OK")
            usleep(useconds_t(20_000 * round))
            daemon.stop(signal: SIGKILL)
            try daemon.restart()
            try daemon.waitForDatabase(songs: 412)
            XCTAssertTrue(daemon.log.contains("database loaded: 412 songs"), daemon.log)
        }
    }

    func testProblemFilesAreLoggedAndSkipped() throws {
        let work = TemporaryDirectory()
        let music = try Fixtures.freshLibrary(in: work.path)
        symlink(".", music + "/loop")
        symlink("/etc", music + "/outside")
        let badName = music + "/bad-\u{FFFD}"
        try FileManager.default.createDirectory(atPath: badName, withIntermediateDirectories: true)
        var rawName = Array((music + "/latin1-").utf8) + [0xE9] + Array(".wav".utf8) + [0]
        let fd = rawName.withUnsafeMutableBufferPointer { open(UnsafeRawPointer($0.baseAddress!).assumingMemoryBound(to: CChar.self), O_CREAT | O_WRONLY, 0o644) }
        close(fd)
        let daemon = try self.daemon(music, songs: 12, config: "follow_outside_symlinks \"no\"")
        let client = try daemon.connect()
        let all = try client.request("listall")
        XCTAssertFalse(all.contains { $0.contains("loop") || $0.contains("outside") || $0.contains("latin1") }, all.joined(separator: "\n"))
        XCTAssertTrue(daemon.log.contains("not valid UTF-8"), daemon.log)
        XCTAssertTrue(daemon.log.contains("Skipping \"broken/random.mp3\""), daemon.log)
        XCTAssertEqual(try client.request("lsinfo ../"), ["ACK [2@0] {lsinfo} Bad relative path"])
        XCTAssertEqual(try client.request("listfiles .."), ["ACK [2@0] {listfiles} Bad relative path"])
        XCTAssertEqual(try client.request("listfiles outside"), ["ACK [52@0] {listfiles} Failed to open \(music)/outside: symbolic link leads outside the music directory (follow_outside_symlinks is no)"])
        XCTAssertEqual(try client.request("albumart ../../etc/passwd 0"), ["ACK [2@0] {albumart} Bad relative path"])
    }

    /// As MPD: links out of the music directory (a second disk) and inside it are followed by
    /// default, `follow_inside_symlinks "no"` skips the inside ones with a log line, and a
    /// folder's `.mpdignore` hides what its patterns match there and below — read anew at
    /// each update, and for `update PATH` too.
    func testSymbolicLinksAndIgnoreFilesAsMPD() throws {
        let work = TemporaryDirectory()
        let music = work.file("music")
        let disk = work.file("disk")
        for folder in [music + "/Album/Live", disk + "/Other"] {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        }
        for path in [music + "/Album/a.wav", music + "/Album/b.wav", music + "/Album/Live/c.wav", disk + "/Other/d.wav"] {
            try AudioFixtures.writeRampWAV(to: path, frames: 4410)
        }
        symlink(disk, music + "/nas")
        symlink("Album", music + "/Again")
        let followed = try self.daemon(music, songs: 3 + 1 + 3)
        let all = try followed.connect().request("listall")
        XCTAssertTrue(all.contains("file: nas/Other/d.wav"), "the link to another disk is followed: \(all)")
        XCTAssertTrue(all.contains("file: Again/a.wav"), "the link inside is followed: \(all)")
        _ = followed.stop()

        let skipping = try self.daemon(music, songs: 4, config: "follow_inside_symlinks \"no\"")
        XCTAssertFalse(try skipping.connect().request("listall").contains { $0.hasPrefix("directory: Again") })
        XCTAssertTrue(skipping.log.contains("Skipping \"Again\": symbolic link inside the music directory"), skipping.log)
        _ = skipping.stop()

        _ = work.write("music/.mpdignore", "# not these\nb.*\n  Live  \n")
        let ignoring = try self.daemon(music, songs: 2, config: "follow_inside_symlinks \"no\"")
        let client = try ignoring.connect()
        XCTAssertEqual(try client.request("listall Album"), ["directory: Album", "file: Album/a.wav", "OK"], "b.wav and Live/ are ignored below the file's folder")
        XCTAssertTrue(ignoring.log.contains("Skipping \"Album/b.wav\": listed in .mpdignore"), ignoring.log)
        // An edit counts at the next update, and `update PATH` honours the patterns above it.
        _ = work.write("music/.mpdignore", "Live\n")
        XCTAssertTrue(try client.request("update Album/b.wav").first?.hasPrefix("updating_db") == true)
        XCTAssertTrue(waitUntil { (try? client.request("listall Album"))?.contains("file: Album/b.wav") == true })
        XCTAssertTrue(try client.request("update").first?.hasPrefix("updating_db") == true)
        XCTAssertTrue(waitUntil { (try? client.request("stats"))?.contains("songs: 3") == true }, "a, b and d")
        XCTAssertFalse(try client.request("listall Album").contains("directory: Album/Live"))
    }
}

final class AutoUpdateTests: XCTestCase {
    func testNewAndRemovedFilesAreNoticedWithoutAnUpdateCommand() throws {
        let work = TemporaryDirectory()
        let music = try Fixtures.freshLibrary(in: work.path)
        let daemon = try ServerProcess(.nimbus, config: "auto_update \"yes\"", musicDirectory: music)
        try daemon.waitForDatabase(songs: 12)
        let watcher = try daemon.connect()
        try watcher.send("idle database\n")
        try FileManager.default.createDirectory(atPath: music + "/Fresh", withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: music + "/untagged.wav", toPath: music + "/Fresh/new.wav")
        XCTAssertEqual(try watcher.readResponse(), ["changed: database", "OK"])
        try daemon.waitForDatabase(songs: 13)
        try watcher.send("idle database\n")
        try FileManager.default.removeItem(atPath: music + "/Beta/Beta Sides/02 - Old Tag.mp3")
        XCTAssertEqual(try watcher.readResponse(), ["changed: database", "OK"])
        try daemon.waitForDatabase(songs: 12)
        XCTAssertEqual(try daemon.connect().request("lsinfo Fresh/new.wav").first, "file: Fresh/new.wav")
    }
}
