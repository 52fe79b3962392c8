import NimbusLibrary
import NimbusModel
import XCTest

@testable import NimbusSources

/// How entries of a playlist file in the music folder become library URIs, and which files
/// the library lists as playlists (the formats the parsers read, no more, no fewer).
final class LibraryPlaylistPathTests: XCTestCase {
    func testEntriesResolveAgainstThePlaylistsFolder() {
        let resolve = { (entry: String) in SongSources.resolve(entry, folder: "Album/Disc 1", musicDirectory: "/srv/music") }
        XCTAssertEqual(resolve("01.flac"), "Album/Disc 1/01.flac")
        XCTAssertEqual(resolve("./02.flac"), "Album/Disc 1/02.flac")
        XCTAssertEqual(resolve("../Disc 2/01.flac"), "Album/Disc 2/01.flac")
        XCTAssertEqual(resolve("..\\Disc 2\\02.flac"), "Album/Disc 2/02.flac", "a playlist written on Windows")
        XCTAssertEqual(resolve("/srv/music/Other/x.mp3"), "Other/x.mp3")
        XCTAssertNil(resolve("/etc/passwd"), "an absolute path outside the music directory")
        XCTAssertNil(resolve("../../../etc/passwd"), "climbing above the music folder")
        XCTAssertEqual(resolve("http://radio.example/stream"), "http://radio.example/stream")
    }

    func testTheLibraryListsExactlyTheFormatsTheParsersRead() {
        XCTAssertEqual(Set(PlaylistFormats.standard.formats.flatMap(\.suffixes)), LibraryPlaylist.suffixes)
        XCTAssertTrue(LibraryPlaylist.isPlaylist("Mix.M3U"))
        XCTAssertFalse(LibraryPlaylist.isPlaylist(".m3u"))
        XCTAssertFalse(LibraryPlaylist.isPlaylist("song.flac"))
    }
}
