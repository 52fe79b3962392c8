import CSQLite
import Foundation
import NimbusHarness
import NimbusStickers
import XCTest

/// Stickers in SQLite with MPD's schema: set, get, list, delete, find by prefix and value.
final class StickerStoreTests: XCTestCase {
    func testSetReplacesAndGetListDeleteWork() throws {
        let directory = TemporaryDirectory("nimbus-stickers")
        let store = try StickerStore(path: directory.file("sticker.sql"))
        try store.set(type: "song", uri: "a.flac", name: "rating", value: "3")
        try store.set(type: "song", uri: "a.flac", name: "rating", value: "5")
        try store.set(type: "song", uri: "a.flac", name: "count", value: "1")
        try store.set(type: "song", uri: "a.flac", name: "", value: "ignored")
        XCTAssertEqual(try store.get(type: "song", uri: "a.flac", name: "rating"), "5")
        XCTAssertEqual(try store.list(type: "song", uri: "a.flac").map { "\($0.name)=\($0.value)" }, ["count=1", "rating=5"])
        XCTAssertTrue(try store.delete(type: "song", uri: "a.flac", name: "count"))
        XCTAssertFalse(try store.delete(type: "song", uri: "a.flac", name: "count"))
        XCTAssertTrue(try store.delete(type: "song", uri: "a.flac"))
        XCTAssertNil(try store.get(type: "song", uri: "a.flac", name: "rating"))
    }

    func testFindMatchesBelowABaseAndCompares() throws {
        let directory = TemporaryDirectory("nimbus-stickers")
        let store = try StickerStore(path: directory.file("sticker.sql"))
        try store.set(type: "song", uri: "Rock/a.flac", name: "rating", value: "2")
        try store.set(type: "song", uri: "Rock/b.flac", name: "rating", value: "4")
        try store.set(type: "song", uri: "Jazz/c.flac", name: "rating", value: "5")
        XCTAssertEqual(try store.find(type: "song", prefix: "Rock/", name: "rating").map(\.uri).sorted(), ["Rock/a.flac", "Rock/b.flac"])
        XCTAssertEqual(try store.find(type: "song", prefix: "", name: "rating", comparison: (.greater, "3")).map(\.uri).sorted(),
                       ["Jazz/c.flac", "Rock/b.flac"])
        XCTAssertEqual(try store.find(type: "song", prefix: "", name: "rating", comparison: (.equal, "2")).map(\.uri), ["Rock/a.flac"])
    }

    /// MPD 0.24's integer comparisons, LIKE matching, sorting in SQL and windows.
    func testIntegerComparisonsSortingAndWindows() throws {
        let directory = TemporaryDirectory("nimbus-stickers")
        let store = try StickerStore(path: directory.file("sticker.sql"))
        for (uri, value) in [("a", "9"), ("b", "10"), ("c", "Loud"), ("d", "100")] {
            try store.set(type: "song", uri: uri, name: "x", value: value)
        }
        XCTAssertEqual(try store.find(type: "song", prefix: "", name: "x", comparison: (.greater, "5")).map(\.uri).sorted(),
                       ["a", "c"], "string comparison: \"10\" < \"5\"")
        XCTAssertEqual(try store.find(type: "song", prefix: "", name: "x", comparison: (.greaterInteger, "5")).map(\.uri).sorted(),
                       ["a", "b", "d"])
        XCTAssertEqual(try store.find(type: "song", prefix: "", name: "x", comparison: (.contains, "OU")).map(\.uri), ["c"])
        XCTAssertEqual(try store.find(type: "song", prefix: "", name: "x", comparison: (.startsWith, "10")).map(\.uri).sorted(),
                       ["b", "d"])
        XCTAssertEqual(try store.find(type: "song", prefix: "", name: "x", order: (.valueInteger, descending: true)).map(\.uri),
                       ["d", "b", "a", "c"])
        XCTAssertEqual(try store.find(type: "song", prefix: "", name: "x", order: (.uri, descending: false), window: (1, 2)).map(\.uri),
                       ["b", "c"])
        XCTAssertEqual(try store.find(type: "song", prefix: "", name: "x", order: (.uri, descending: false), window: (3, nil)).map(\.uri),
                       ["d"])
    }

    func testIncrementAndDecrementStartFromTheGivenValue() throws {
        let directory = TemporaryDirectory("nimbus-stickers")
        let store = try StickerStore(path: directory.file("sticker.sql"))
        try store.add(type: "song", uri: "a", name: "plays", value: "1")
        try store.add(type: "song", uri: "a", name: "plays", value: "5")
        XCTAssertEqual(try store.get(type: "song", uri: "a", name: "plays"), "6")
        try store.add(type: "song", uri: "a", name: "plays", value: "2", subtract: true)
        XCTAssertEqual(try store.get(type: "song", uri: "a", name: "plays"), "4")
        try store.set(type: "playlist", uri: "p", name: "rating", value: "x")
        XCTAssertEqual(try store.names(), ["plays", "rating"])
        XCTAssertEqual(try store.namesAndTypes().map { "\($0.name):\($0.type)" }, ["plays:song", "rating:playlist"])
        XCTAssertEqual(try store.namesAndTypes(type: "playlist").map(\.name), ["rating"])
    }

    /// A database MPD wrote (its schema, its rows) is read as it is.
    func testAnMPDStickerDatabaseIsReadAsItIs() throws {
        let directory = TemporaryDirectory("nimbus-stickers")
        let path = directory.file("sticker.sql")
        var db: OpaquePointer?
        XCTAssertEqual(sqlite3_open(path, &db), SQLITE_OK)
        XCTAssertEqual(sqlite3_exec(db, """
            CREATE TABLE sticker(type VARCHAR NOT NULL, uri VARCHAR NOT NULL, name VARCHAR NOT NULL, value VARCHAR NOT NULL);
            CREATE UNIQUE INDEX sticker_value ON sticker(type, uri, name);
            CREATE INDEX sticker_uri ON sticker(type, uri);
            INSERT INTO sticker VALUES('song', 'x.mp3', 'rating', '7');
            """, nil, nil, nil), SQLITE_OK)
        sqlite3_close(db)
        let store = try StickerStore(path: path)
        XCTAssertEqual(try store.get(type: "song", uri: "x.mp3", name: "rating"), "7")
    }

    func testAnUnopenableDatabaseIsAnError() {
        XCTAssertThrowsError(try StickerStore(path: "/nonexistent-dir/sticker.sql")) { error in
            XCTAssertTrue("\(error)".contains("Failed to open sticker database"), "\(error)")
        }
    }
}
