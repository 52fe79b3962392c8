@testable import NimbusLibrary
import NimbusModel
import NimbusStorage
import NimbusHarness
import XCTest

final class DatabaseTests: XCTestCase {
    private func librarySong(_ name: String, album: String? = nil, disc: String? = nil, track: String? = nil, artist: String = "A") -> LibrarySong {
        var items = [TagItem(.artist, artist)]
        if let album { items.append(TagItem(.album, album)) }
        if let disc { items.append(TagItem(.disc, disc)) }
        if let track { items.append(TagItem(.track, track)) }
        return LibrarySong.make(name: name, modified: 1, format: AudioFormat(sampleRate: 44100, sample: .s16, channels: 2), tag: Tag(items: items, duration: 1500))
    }

    func testCodecRoundTripAndChecksum() throws {
        var root = LibraryDirectory(name: "")
        root.songs = [librarySong("root.wav")]
        root.directories = [
            LibraryDirectory(name: "Ёлка", modified: 42, identity: FileIdentity(device: 1, inode: 2), songs: [librarySong("1.flac", album: "X")])
        ]
        let database = Database(root: root, updated: 1234)
        var bytes = DatabaseCodec.encode(database, musicDirectory: "/music")
        let (header, decoded) = try DatabaseCodec.decode(bytes)
        XCTAssertEqual(header, DatabaseCodec.Header(updated: 1234, musicDirectory: "/music"))
        XCTAssertEqual(decoded.root, root)
        XCTAssertEqual(decoded.statistics, database.statistics)
        bytes[bytes.count / 2] ^= 0xFF
        XCTAssertThrowsError(try DatabaseCodec.decode(bytes))
        XCTAssertThrowsError(try DatabaseCodec.decode(Array(bytes.prefix(10))))
    }

    func testSongsSortLikeMPD() {
        var directory = LibraryDirectory(name: "d")
        directory.songs = [
            librarySong("c.mp3", album: "B", disc: "1", track: "2"),
            librarySong("a.mp3", album: "B", disc: "2", track: "1"),
            librarySong("z.mp3"),
            librarySong("b.mp3", album: "B", disc: "1", track: "10"),
            librarySong("d.mp3", album: "A"),
        ]
        directory.directories = [LibraryDirectory(name: "Various"), LibraryDirectory(name: "broken"), LibraryDirectory(name: "Alpha")]
        directory.sortContents()
        XCTAssertEqual(directory.songs.map(\.name), ["z.mp3", "d.mp3", "c.mp3", "b.mp3", "a.mp3"])
        XCTAssertEqual(directory.directories.map(\.name), ["Alpha", "broken", "Various"])
    }

    func testStableTagSortNumericTracksAndWindow() throws {
        let songs = (1...12).map { index in
            Song(uri: "\(index)", tag: Tag(items: [TagItem(.track, String(13 - index)), TagItem(.album, index % 2 == 0 ? "b" : "a")]))
        }
        var byTrack = songs
        SortOrder.tag(.track, descending: false).sort(&byTrack)
        XCTAssertEqual(byTrack.map(\.uri), (1...12).reversed().map(String.init))
        var byAlbum = songs
        SortOrder.tag(.album, descending: true).sort(&byAlbum)
        XCTAssertEqual(byAlbum.prefix(3).map(\.uri), ["2", "4", "6"], "stable within equal keys")
    }

    func testStatisticsCountDistinctArtistsAndAlbums() {
        var root = LibraryDirectory(name: "")
        root.songs = [librarySong("1", album: "X", artist: "A"), librarySong("2", album: "X", artist: "B"), librarySong("3", artist: "A")]
        let statistics = Database(root: root, updated: 0).statistics
        XCTAssertEqual(statistics, Database.Statistics(artists: 2, albums: 1, songs: 3, playtime: 4500))
    }

    func testValueTreeNestsGroupsAndUsesFallbacks() throws {
        var root = LibraryDirectory(name: "")
        root.songs = [
            LibrarySong.make(name: "1", modified: 0, format: nil, tag: Tag(items: [TagItem(.album, "X"), TagItem(.artist, "A")])),
            LibrarySong.make(name: "2", modified: 0, format: nil, tag: Tag(items: [TagItem(.album, "Y"), TagItem(.albumArtist, "B")])),
            LibrarySong.make(name: "3", modified: 0, format: nil, tag: Tag(items: [TagItem(.artist, "A")])),
        ]
        let tree = try Database(root: root, updated: 0).uniqueValues([.albumArtist, .album], matching: nil)
        XCTAssertEqual(tree.sortedKeys, ["A", "B"])
        XCTAssertEqual(tree.children["A"]?.sortedKeys, ["", "X"])
    }

    /// Whole-library answers are remembered per snapshot: asked again they are the same, and
    /// a new snapshot (an update) answers from its own songs; different filters never share.
    func testRememberedAnswersBelongToTheirSnapshotAndFilter() throws {
        var root = LibraryDirectory(name: "")
        root.songs = [librarySong("1", album: "X", artist: "A"), librarySong("2", album: "Y", artist: "B")]
        let first = Database(root: root, updated: 0)
        XCTAssertEqual(try first.uniqueValues([.album], matching: nil).sortedKeys, ["X", "Y"])
        XCTAssertEqual(try first.uniqueValues([.album], matching: nil).sortedKeys, ["X", "Y"])
        let onlyA = try FilterEvaluator(.tag(.artist, StringMatch("A", kind: .exact, foldCase: false), negated: false))
        let onlyB = try FilterEvaluator(.tag(.artist, StringMatch("B", kind: .exact, foldCase: false), negated: false))
        XCTAssertEqual(try first.uniqueValues([.album], matching: onlyA).sortedKeys, ["X"])
        XCTAssertEqual(try first.uniqueValues([.album], matching: onlyB).sortedKeys, ["Y"])
        XCTAssertEqual(try first.count(onlyB, group: nil).first?.1.songs, 1)
        XCTAssertEqual(try first.count(nil, group: .album).map { $0.0 }, ["X", "Y"])
        root.songs.append(librarySong("3", album: "Z", artist: "B"))
        let second = Database(root: root, updated: 1)
        XCTAssertEqual(try second.uniqueValues([.album], matching: onlyB).sortedKeys, ["Y", "Z"])
        XCTAssertEqual(try second.count(onlyB, group: nil).first?.1.songs, 2)
        XCTAssertEqual(try first.count(onlyB, group: nil).first?.1.songs, 1, "the old snapshot keeps its own answer")
    }
}
