import NimbusCore
import NimbusHarness
import XCTest

/// Stored playlists as .m3u files.
final class PlaylistStoreTests: XCTestCase {
    func testEditingAPlaylistKeepsItsEntriesInOrder() throws {
        let directory = TemporaryDirectory("nimbus-playlists")
        let store = PlaylistStore(directory: directory.path, maxLength: 5)
        try store.create("mix", entries: ["a.flac", "http://x/stream"])
        try store.add("mix", entries: ["b.mp3"], at: 1)
        try store.move("mix", from: 0, to: 2)
        XCTAssertEqual(try store.load("mix"), ["b.mp3", "http://x/stream", "a.flac"])
        try store.delete("mix", range: 0..<1)
        XCTAssertEqual(try String(contentsOfFile: directory.file("mix.m3u"), encoding: .utf8), "http://x/stream\na.flac\n")
        XCTAssertThrowsError(try store.add("mix", entries: ["1", "2", "3", "4"])) { XCTAssertEqual($0 as? PlaylistStore.Failure, .tooLarge) }
        XCTAssertThrowsError(try store.create("mix", entries: [])) { XCTAssertEqual($0 as? PlaylistStore.Failure, .playlistExists) }
        XCTAssertThrowsError(try store.load("a/b")) { XCTAssertEqual($0 as? PlaylistStore.Failure, .noSuchPlaylist) }
        XCTAssertThrowsError(try store.create("a/b", entries: [])) { XCTAssertEqual($0 as? PlaylistStore.Failure, .badName) }
        XCTAssertThrowsError(try store.rename("nope", to: "x")) { XCTAssertEqual($0 as? PlaylistStore.Failure, .noSuchPlaylist) }
        try store.rename("mix", to: "renamed")
        XCTAssertEqual(store.list().map(\.name), ["renamed"])
        try store.remove("renamed")
        XCTAssertTrue(store.list().isEmpty)
    }

    func testSaveModesAndRangeMoves() throws {
        let directory = TemporaryDirectory("nimbus-playlists")
        let store = PlaylistStore(directory: directory.path)
        XCTAssertThrowsError(try store.save("m", entries: ["x"], mode: .append)) { XCTAssertEqual($0 as? PlaylistStore.Failure, .noSuchPlaylist) }
        XCTAssertThrowsError(try store.save("m", entries: ["x"], mode: .replace)) { XCTAssertEqual($0 as? PlaylistStore.Failure, .noSuchPlaylist) }
        try store.save("m", entries: ["a", "b"], mode: .create)
        try store.save("m", entries: ["c", "d", "e"], mode: .append)
        XCTAssertEqual(try store.load("m"), ["a", "b", "c", "d", "e"])
        try store.move("m", range: 1..<3, to: 3)
        XCTAssertEqual(try store.load("m"), ["a", "d", "e", "b", "c"])
        XCTAssertThrowsError(try store.move("m", range: 3..<5, to: 4)) { XCTAssertEqual($0 as? PlaylistStore.Failure, .badRange) }
        try store.save("m", entries: ["z"], mode: .replace)
        XCTAssertEqual(try store.load("m"), ["z"])
    }

    func testReadsPlaylistsWrittenByOtherPrograms() throws {
        let directory = TemporaryDirectory("nimbus-playlists")
        _ = directory.write("other.m3u", "#EXTM3U\r\n#EXTINF:123,Artist - Title\r\n/srv/music/a.flac\r\n\r\nb.mp3\r\n")
        let store = PlaylistStore(directory: directory.path, musicDirectory: "/srv/music/")
        XCTAssertEqual(try store.load("other"), ["a.flac", "b.mp3"])
        let absolute = PlaylistStore(directory: directory.path, musicDirectory: "/srv/music", absolutePaths: true)
        try absolute.create("abs", entries: ["a.flac", "http://x/y"])
        XCTAssertEqual(try String(contentsOfFile: directory.file("abs.m3u"), encoding: .utf8), "/srv/music/a.flac\nhttp://x/y\n")
    }
}
