@testable import NimbusLibrary
import NimbusModel
import XCTest

/// The queue's view of the database: `add DIR` takes songs made for their place, in MPD's
/// order, and a song asked for from another place (same length, one byte apart) is not
/// handed the one kept for the first.
final class SongsBelowTests: XCTestCase {
    func testSongsBelowAreMadeForTheirPlaceInMPDsOrder() {
        let song = LibrarySong.make(name: "a.flac", modified: 1, format: nil, tag: Tag())
        XCTAssertEqual(song.song(in: "Xy").uri, "Xy/a.flac")
        XCTAssertEqual(song.song(in: "Xz").uri, "Xz/a.flac")
        XCTAssertEqual(song.song(in: "").uri, "a.flac")
        XCTAssertEqual(song.song(in: "Long directory name past fifteen bytes").uri, "Long directory name past fifteen bytes/a.flac")

        var root = LibraryDirectory(name: "")
        root.songs = [LibrarySong.make(name: "top.mp3", modified: 1, format: nil, tag: Tag())]
        var album = LibraryDirectory(name: "Album")
        album.songs = [LibrarySong.make(name: "2.ogg", modified: 1, format: nil, tag: Tag()), LibrarySong.make(name: "1.ogg", modified: 1, format: nil, tag: Tag())]
        var disc = LibraryDirectory(name: "Disc 2")
        disc.songs = [LibrarySong.make(name: "x.flac", modified: 1, format: nil, tag: Tag())]
        album.directories = [disc]
        root.directories = [album]
        let database = Database(root: root, updated: 0)
        XCTAssertEqual(database.songs(below: "").map(\.uri), ["top.mp3", "Album/2.ogg", "Album/1.ogg", "Album/Disc 2/x.flac"])
        XCTAssertEqual(database.songs(below: "Album/Disc 2").map(\.uri), ["Album/Disc 2/x.flac"])
        XCTAssertEqual(database.songs(below: "Nowhere"), [])
    }
}
