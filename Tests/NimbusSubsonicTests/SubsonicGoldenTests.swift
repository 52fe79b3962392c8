import Foundation
import NimbusCore
import NimbusLibrary
import NimbusHarness
import NimbusModel
import NimbusSupport
import NimbusWeb
import XCTest

@testable import NimbusSubsonic

/// The API answered in process, over an in-memory library, endpoint family by endpoint
/// family; the answers for a song, an album, an artist, a playlist and an error are compared
/// with files under Golden/ in both XML and JSON, so a reviewer reads what a phone gets.
/// `NIMBUS_UPDATE_GOLDEN=1` writes the files anew (then read the diff).
final class SubsonicGoldenTests: XCTestCase {
    private static let golden = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Golden")
    private var folder: TemporaryDirectory!
    private var service: SubsonicService!
    private var database: Database!

    override func setUp() {
        super.setUp()
        folder = TemporaryDirectory("nimbus-subsonic-golden")
        func song(_ file: String, title: String, track: Int, seconds: Int) -> LibrarySong {
            let tag = Tag(
                items: [
                    TagItem(.artist, "Alpha Band"), TagItem(.albumArtist, "Alpha Band"), TagItem(.album, "First Light"),
                    TagItem(.title, title), TagItem(.track, String(track)), TagItem(.date, "2001"), TagItem(.genre, "Rock"),
                ],
                duration: seconds * 1000)
            return LibrarySong.make(
                name: file, modified: 1_700_000_000, added: 1_700_000_000, format: AudioFormat(sampleRate: 44100, sample: .s16, channels: 2),
                tag: tag, size: Int64(seconds) * 176_400)
        }
        let album = LibraryDirectory(
            name: "First Light", modified: 1_700_000_000,
            songs: [song("01 - Dawn.flac", title: "Dawn", track: 1, seconds: 200), song("02 - Noon.flac", title: "Noon", track: 2, seconds: 185)])
        let root = LibraryDirectory(name: "", directories: [LibraryDirectory(name: "Alpha Band", modified: 1_700_000_000, directories: [album])])
        database = Database(root: root, updated: 1_700_000_000)
        let playlists = folder.file("playlists")
        try? FileManager.default.createDirectory(atPath: playlists, withIntermediateDirectories: true)
        _ = folder.write("playlists/Road Trip.m3u", "Alpha Band/First Light/02 - Noon.flac\nAlpha Band/First Light/01 - Dawn.flac\n")
        // The answer carries the file's times: fixed, so the golden files hold.
        try? FileManager.default.setAttributes(
            [.modificationDate: Date(timeIntervalSince1970: 1_700_000_000)], ofItemAtPath: folder.file("playlists/Road Trip.m3u"))
        var backend = SubsonicBackend(
            location: { uri in SongLocation(uri) { _ in false } }, mounts: { [] },
            open: { _ in throw SubsonicError(70, "no files in this test") }, cover: { _, _, _ in nil },
            startScan: {}, scanning: { false }, playing: { nil })
        backend.playlists = PlaylistStore(directory: playlists)
        let accounts = SubsonicAccounts(configured: [SubsonicUser(name: "alice", password: "secret")], file: nil, logger: .silent)
        service = SubsonicService(
            accounts: accounts, playQueues: SubsonicPlayQueues(file: nil, logger: .silent), backend: backend, database: database,
            serverVersion: "test", executors: Executors(), logger: .silent)
    }

    override func tearDown() {
        service = nil
        folder = nil
        super.tearDown()
    }

    /// The answer to `endpoint` with `arguments`, signed in as alice, in `format`.
    private func ask(_ endpoint: String, _ arguments: [(String, String)] = [], format: String = "json") -> (status: Int, body: String) {
        let signed = [("u", "alice"), ("p", "secret"), ("v", "1.16.1"), ("c", "golden"), ("f", format)] + arguments
        let request = APIRequest(
            method: "GET", path: "/rest/" + endpoint, arguments: signed.map { (name: $0.0, value: $0.1) }, headers: [:], peer: "127.0.0.1")
        let answer = service.answer(request, database: database)
        guard case .bytes(let bytes) = answer.body else { return (answer.status, "") }
        return (answer.status, String(decoding: bytes, as: UTF8.self))
    }

    private func json(_ body: String) throws -> [String: Any] {
        let object = try JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: Any]
        return try XCTUnwrap(object?["subsonic-response"] as? [String: Any], body)
    }

    /// Compares `body` with Golden/`name`, or writes it there when asked to.
    private func matchesGolden(_ body: String, _ name: String, file: StaticString = #filePath, line: UInt = #line) throws {
        let url = Self.golden.appendingPathComponent(name)
        // Pretty JSON for a reader; the comparison is of the same canonical form.
        var text = body
        if name.hasSuffix(".json") {
            let object = try JSONSerialization.jsonObject(with: Data(body.utf8))
            text = String(decoding: try JSONSerialization.data(withJSONObject: object, options: [.prettyPrinted, .sortedKeys]), as: UTF8.self)
        }
        text += "\n"
        if ProcessInfo.processInfo.environment["NIMBUS_UPDATE_GOLDEN"] == "1" {
            try FileManager.default.createDirectory(at: Self.golden, withIntermediateDirectories: true)
            try text.write(to: url, atomically: true, encoding: .utf8)
            return
        }
        let expected = try String(contentsOf: url, encoding: .utf8)
        XCTAssertEqual(text, expected, "\(name) differs from the golden file (NIMBUS_UPDATE_GOLDEN=1 rewrites it)", file: file, line: line)
    }

    private func ids() throws -> (song: String, album: String, artist: String, playlist: String) {
        let album = try json(ask("getAlbumList2", [("type", "alphabeticalByName")]).body)
        let first = try XCTUnwrap(((album["albumList2"] as? [String: Any])?["album"] as? [[String: Any]])?.first)
        let playlists = try json(ask("getPlaylists").body)
        let playlist = try XCTUnwrap(((playlists["playlists"] as? [String: Any])?["playlist"] as? [[String: Any]])?.first)
        return (
            SubsonicIDs.song("Alpha Band/First Light/01 - Dawn.flac"), try XCTUnwrap(first["id"] as? String),
            try XCTUnwrap(first["artistId"] as? String), try XCTUnwrap(playlist["id"] as? String)
        )
    }

    func testBrowsingAnswersMatchTheGoldenFiles() throws {
        let id = try ids()
        for format in ["xml", "json"] {
            let song = ask("getSong", [("id", id.song)], format: format)
            XCTAssertEqual(song.status, 200)
            try matchesGolden(song.body, "song.\(format)")
            try matchesGolden(ask("getAlbum", [("id", id.album)], format: format).body, "album.\(format)")
            try matchesGolden(ask("getArtist", [("id", id.artist)], format: format).body, "artist.\(format)")
        }
    }

    func testPlaylistAnswersMatchTheGoldenFiles() throws {
        let id = try ids()
        for format in ["xml", "json"] {
            try matchesGolden(ask("getPlaylist", [("id", id.playlist)], format: format).body, "playlist.\(format)")
        }
        let listed = try json(ask("getPlaylist", [("id", id.playlist)]).body)
        let entries = try XCTUnwrap((listed["playlist"] as? [String: Any])?["entry"] as? [[String: Any]])
        XCTAssertEqual(entries.compactMap { $0["title"] as? String }, ["Noon", "Dawn"], "in the playlist's order")
    }

    func testErrorsMatchTheGoldenFilesAndKeepTheirCodes() throws {
        for format in ["xml", "json"] {
            let missing = ask("getSong", [("id", "s0000000000000000")], format: format)
            XCTAssertEqual(missing.status, 200, "Subsonic errors travel in a 200 answer")
            try matchesGolden(missing.body, "error.\(format)")
        }
        func code(_ endpoint: String, _ arguments: [(String, String)] = []) throws -> Int? {
            (try json(ask(endpoint, arguments).body)["error"] as? [String: Any])?["code"] as? Int
        }
        XCTAssertEqual(try code("getSong"), 10, "a required argument missing")
        XCTAssertEqual(try code("getPlaylist", [("id", "p0000000000000000")]), 70)
        XCTAssertEqual(try code("createPlaylist", [("name", "Road Trip")]), 10, "a playlist of that name exists: one map, one code")
        XCTAssertEqual(try code("jukeboxControl", [("action", "get")]), 0, "no jukebox on this box")
        XCTAssertEqual(try code("getUsers"), 50, "alice is no admin")
    }

    func testTheSearchAndListFamiliesFindTheLibrary() throws {
        let found = try json(ask("search3", [("query", "Noon")]).body)
        let songs = (found["searchResult3"] as? [String: Any])?["song"] as? [[String: Any]]
        XCTAssertEqual(songs?.compactMap { $0["title"] as? String }, ["Noon"])
        let genres = try json(ask("getGenres").body)
        let genre = ((genres["genres"] as? [String: Any])?["genre"] as? [[String: Any]])?.first
        XCTAssertEqual(genre?["songCount"] as? Int, 2)
        let random = try json(ask("getRandomSongs", [("size", "5")]).body)
        XCTAssertEqual(((random["randomSongs"] as? [String: Any])?["song"] as? [Any])?.count, 2)
    }

    /// One table, sorted, each name once; what the box will not do answers 501 or 410, with
    /// `.view` as the same name, and a duplicate is refused.
    func testTheEndpointTableIsSortedUniqueAndAnswersEveryName() throws {
        let table = SubsonicService.endpoints
        let names = table.endpoints.map(\.name)
        XCTAssertEqual(names, names.sorted())
        XCTAssertEqual(Set(names).count, names.count)
        XCTAssertGreaterThanOrEqual(names.count, 66)
        XCTAssertEqual(
            SubsonicEndpointTable.problems(
                Array(table.endpoints[...3]) + Array(table.endpoints[3...]), notImplemented: [], gone: []),
            ["\(table.endpoints[3].name) is listed twice"])
        XCTAssertEqual(SubsonicEndpointTable.problems(table.endpoints, notImplemented: ["ping"], gone: []), ["ping is answered and listed as missing"])
        XCTAssertEqual(ask("getShares").status, 501)
        XCTAssertEqual(ask("getVideos.view").status, 410)
        XCTAssertEqual(ask("noSuchThing").status, 404)
        XCTAssertEqual(ask("ping.view").status, 200)
        guard case .endpoint(let album) = table.lookup("/rest/getAlbum.view") else { return XCTFail("getAlbum.view is getAlbum") }
        XCTAssertTrue(album.inline)
    }

    /// A CUE sheet's tracks are parts of an image a phone cannot be sent: the API lists the
    /// image as one song (MPD clients get the tracks), and no empty `image.cue` folder.
    func testCueTracksReachPhonesAsTheirImage() throws {
        let image = LibrarySong.make(
            name: "image.flac", modified: 1_700_000_000, format: AudioFormat(sampleRate: 44100, sample: .s16, channels: 2),
            tag: Tag(items: [TagItem(.title, "Whole Image")], duration: 12_000))
        let track = LibrarySong.make(
            name: "track0001", modified: 1_700_000_000, format: AudioFormat(sampleRate: 44100, sample: .s16, channels: 2),
            tag: Tag(items: [TagItem(.title, "One"), TagItem(.album, "Cue Album")], duration: 4_000),
            target: LibraryTarget(file: "image.flac", start: 0, end: 4_000))
        let cue = LibraryDirectory(name: "image.cue", modified: 1_700_000_000, songs: [track])
        let album = LibraryDirectory(name: "Cue", modified: 1_700_000_000, directories: [cue], songs: [image])
        database = Database(root: LibraryDirectory(name: "", directories: [album]), updated: 1_700_000_000)
        let random = try json(ask("getRandomSongs", [("size", "10")]).body)
        let titles = ((random["randomSongs"] as? [String: Any])?["song"] as? [[String: Any]])?.compactMap { $0["title"] as? String }
        XCTAssertEqual(titles, ["Whole Image"])
        let folder = try json(ask("getMusicDirectory", [("id", SubsonicIDs.directory("Cue"))]).body)
        let children = ((folder["directory"] as? [String: Any])?["child"] as? [[String: Any]]) ?? []
        XCTAssertEqual(children.compactMap { $0["title"] as? String }, ["Whole Image"], "the image, not the sheet's folder")
    }
}
