import Foundation
import NimbusHarness
import XCTest

/// Playlist files inside the music folder, against Debian's MPD on the same folder: listed
/// as `playlist:` by `lsinfo`, `listall` and `listallinfo` (a folder holding only playlists
/// included), and read by path with `listplaylist`, `listplaylistinfo` and `load` — entries
/// relative to the playlist's folder, `..` and absolute paths into the music directory
/// resolved, entries the library lacks left out.
final class LibraryPlaylistTests: XCTestCase {
    private func library() throws -> TemporaryDirectory {
        let work = TemporaryDirectory("nimbus-library-playlists")
        for folder in ["music/Album", "music/Other", "music/Lists"] {
            try FileManager.default.createDirectory(atPath: work.file(folder), withIntermediateDirectories: true)
        }
        for (index, name) in ["Album/a.wav", "Album/b.wav", "Other/c.wav"].enumerated() {
            let wav = work.file("music/" + name)
            try AudioFixtures.writeRampWAV(to: wav, frames: 4410 * (index + 1))
        }
        let music = work.file("music")
        _ = work.write("music/Album/album.m3u", "a.wav\n./b.wav\n../Other/c.wav\nmissing.wav\n\(music)/Other/c.wav\n")
        _ = work.write(
            "music/Lists/only.pls",
            "[playlist]\nNumberOfEntries=2\nFile1=../Album/b.wav\nTitle1=Bee\nFile2=../Other/c.wav\nVersion=2\n")
        _ = work.write("music/Lists/ext.m3u8", "#EXTM3U\n#EXTINF:1,Artist - Song A\n../Album/a.wav\n")
        // Fixed dates: both daemons print Last-Modified.
        for file in ["Album/album.m3u", "Lists/only.pls", "Lists/ext.m3u8"] {
            try FileManager.default.setAttributes(
                [.modificationDate: Date(timeIntervalSince1970: 1_700_000_000)], ofItemAtPath: work.file("music/" + file))
        }
        return work
    }

    func testPlaylistFilesAreListedAndReadAsMPDDoes() throws {
        let work = try library()
        try DifferentialHarness(musicDirectory: work.file("music"), songs: 3).compare([
            .exchange(
                "listed",
                ["lsinfo Album", "lsinfo Lists", "lsinfo", "listall", "listallinfo Lists", "listall Album"]),
            .exchange(
                "read by path",
                [
                    "listplaylist Album/album.m3u", "listplaylistinfo Lists/only.pls", "listplaylist Lists/ext.m3u8",
                    "listplaylist Album/nosuch.m3u",
                ]),
            .exchange(
                "loaded",
                [
                    "load Album/album.m3u", "playlist", "clear", "load Lists/only.pls 1:2", "playlistinfo", "clear",
                    "load Album/nosuch.m3u",
                ]),
        ])
    }

    /// An edit to a playlist file is seen at the next update; removing it removes the entry.
    func testAnUpdateFollowsThePlaylistFiles() throws {
        let work = try library()
        let daemon = try ServerProcess(.nimbus, musicDirectory: work.file("music"))
        try daemon.waitForDatabase(songs: 3)
        let client = try daemon.connect()
        XCTAssertTrue(try client.request("lsinfo Lists").contains("playlist: Lists/only.pls"))
        try FileManager.default.removeItem(atPath: work.file("music/Lists/only.pls"))
        _ = work.write("music/Lists/new.m3u", "../Album/a.wav\n")
        XCTAssertTrue(try client.request("update").first?.hasPrefix("updating_db") == true)
        XCTAssertTrue(waitUntil { (try? client.request("lsinfo Lists"))?.contains("playlist: Lists/new.m3u") == true })
        XCTAssertFalse(try client.request("lsinfo Lists").contains("playlist: Lists/only.pls"))
        XCTAssertEqual(try client.request("listplaylist Lists/new.m3u"), ["file: Album/a.wav", "OK"])
        // The database keeps them across a restart.
        _ = daemon.stop()
        try daemon.restart()
        try daemon.waitForDatabase(songs: 3)
        XCTAssertTrue(try daemon.connect().request("lsinfo Lists").contains("playlist: Lists/new.m3u"))
    }
}
