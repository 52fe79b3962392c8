@testable import NimbusLibrary
import NimbusModel
import XCTest

/// The pool an update runs its scanned songs through: equal long values end up in one
/// storage, nothing of the scan's strings is kept, and the song reads back the same.
final class TagValuePoolTests: XCTestCase {
    private func address(_ value: String) -> UnsafeRawPointer? {
        var value = value
        return value.withUTF8 { UnsafeRawPointer($0.baseAddress) }
    }

    private func scanned(_ name: String, title: String) -> LibrarySong {
        // Built from pieces so each song's strings are storage of their own, as a scan's are.
        let album = ["The Dark Side of", "the Moon (Remastered)"].joined(separator: " ")
        let tag = Tag(items: [TagItem(.album, album), TagItem(.title, title), TagItem(.track, "1")], duration: 1000)
        return LibrarySong.make(name: name, modified: 7, added: 9, format: nil, tag: tag, size: 123)
    }

    func testEqualLongValuesShareOneStorageAndNothingOfTheScanIsKept() {
        var pool = TagValuePool()
        let first = scanned("01 Speak to Me.flac", title: "Speak to Me / Breathe")
        let second = scanned("02 On the Run.flac", title: "On the Run (instrumental)")
        XCTAssertNotEqual(address(first.tag.items[0].value), address(second.tag.items[0].value))

        let keptFirst = pool.kept(first), keptSecond = pool.kept(second)
        XCTAssertEqual(keptFirst, first)
        XCTAssertEqual(keptSecond, second)
        XCTAssertEqual(keptFirst.size, 123)
        XCTAssertEqual(keptFirst.added, 9)
        XCTAssertEqual(address(keptFirst.tag.items[0].value), address(keptSecond.tag.items[0].value))
        XCTAssertNotEqual(address(keptFirst.tag.items[0].value), address(first.tag.items[0].value))
        XCTAssertFalse(keptFirst === first, "a new block, its name in it")
        XCTAssertEqual(keptFirst.name, "01 Speak to Me.flac")
        XCTAssertNotEqual(keptFirst.withName { UnsafeRawPointer($0.baseAddress) }, first.withName { UnsafeRawPointer($0.baseAddress) })
        XCTAssertNotEqual(address(keptFirst.tag.items[1].value), address(first.tag.items[1].value))
        XCTAssertTrue(keptFirst.tag.items[0].sharesEntry(with: keptSecond.tag.items[0]), "one album item for both songs")
        XCTAssertTrue(keptFirst.tag.items[2].sharesEntry(with: keptSecond.tag.items[2]), "short values too")
        XCTAssertFalse(keptFirst.tag.items[1].sharesEntry(with: keptSecond.tag.items[1]))
    }

    /// A loaded database holds one item per type and string, however many songs carry it;
    /// the same string under another type is another item.
    func testALoadedDatabaseSharesItsItems() throws {
        let songs = (1...3).map { index in
            LibrarySong.make(
                name: "\(index).flac", modified: 1, format: nil,
                tag: Tag(items: [TagItem(.artist, "Nina"), TagItem(.albumArtist, "Nina"), TagItem(.title, "Song \(index)")]))
        }
        let database = Database(root: LibraryDirectory(name: "", directories: [LibraryDirectory(name: "A", songs: songs)]), updated: 1)
        let (_, loaded) = try DatabaseCodec.decode(DatabaseCodec.encode(database, musicDirectory: "/music"))
        let items = try XCTUnwrap(loaded.root.directories.first).songs.map(\.tag.items)
        XCTAssertEqual(items, songs.map(\.tag.items))
        XCTAssertTrue(items[0][0].sharesEntry(with: items[2][0]))
        XCTAssertTrue(items[1][1].sharesEntry(with: items[2][1]))
        XCTAssertFalse(items[0][0].sharesEntry(with: items[0][1]), "Artist and AlbumArtist are two items")
        XCTAssertFalse(items[0][2].sharesEntry(with: items[1][2]))
    }
}

/// A library song is one block with its name after its fields: every field reads back as
/// made, names of any length and script compare byte for byte, and the block is freed with
/// its last reference (the tag items it held are released).
final class LibrarySongTests: XCTestCase {
    func testFieldsAndNameReadBackFromTheBlock() {
        let format = AudioFormat(sampleRate: 96000, sample: .s24, channels: 6)
        let long = String(repeating: "Ωmega ", count: 60) + ".flac"
        for name in ["", "a.mp3", "01 Speak to Me.flac", long] {
            let song = LibrarySong.make(
                name: name, modified: -5, added: 1_700_000_000, format: format, tag: Tag(items: [TagItem(.title, "T")], duration: 1234),
                size: 5_000_000_000)
            XCTAssertEqual(song.name, name)
            XCTAssertTrue(song.hasName(name))
            XCTAssertFalse(song.hasName(name + "x"))
            XCTAssertEqual(song.modified, -5)
            XCTAssertEqual(song.added, 1_700_000_000)
            XCTAssertEqual(song.size, 5_000_000_000)
            XCTAssertEqual(song.format, format)
            XCTAssertEqual(song.tag, Tag(items: [TagItem(.title, "T")], duration: 1234))
            XCTAssertEqual(song.song(in: "Dir").uri, StoragePath.join("Dir", name))
            XCTAssertEqual(song.song(in: "").uri, name)
        }
        let bare = LibrarySong.make(name: "x", modified: 0, format: nil, tag: Tag())
        XCTAssertNil(bare.format)
        XCTAssertNil(bare.added)
        XCTAssertNil(bare.tag.duration)
        XCTAssertEqual(bare, LibrarySong.make(name: "x", modified: 0, format: nil, tag: Tag()))
        XCTAssertNotEqual(bare, LibrarySong.make(name: "y", modified: 0, format: nil, tag: Tag()))
        XCTAssertEqual(Set([bare, bare.sized(0)]).count, 1)
    }

    func testTheBlockReleasesWhatItHolds() {
        var item = TagItem(.title, "held")
        var song: LibrarySong? = LibrarySong.make(name: "n", modified: 0, format: nil, tag: Tag(items: [item]))
        _ = song?.song(in: "d")
        XCTAssertFalse(item.holdsOnlyReference(), "the song's list and the song the queue takes hold it")
        song = nil
        XCTAssertTrue(item.holdsOnlyReference(), "freeing the block released its fields")
    }
}
