import CSQLite
import XCTest

final class SQLiteBindingTests: XCTestCase {
    func testTransientBindingAndQuery() throws {
        var db: OpaquePointer?
        XCTAssertEqual(sqlite3_open(":memory:", &db), SQLITE_OK)
        defer { sqlite3_close(db) }
        XCTAssertEqual(sqlite3_exec(db, "CREATE TABLE sticker (uri TEXT, name TEXT, value TEXT)", nil, nil, nil), SQLITE_OK)
        var insert: OpaquePointer?
        XCTAssertEqual(sqlite3_prepare_v2(db, "INSERT INTO sticker VALUES (?, ?, ?)", -1, &insert, nil), SQLITE_OK)
        for (index, value) in ["Ёлка/01.flac", "rating", "5"].enumerated() {
            XCTAssertEqual(csqlite_bind_text_transient(insert, Int32(index + 1), value, -1), SQLITE_OK)
        }
        XCTAssertEqual(sqlite3_step(insert), SQLITE_DONE)
        sqlite3_finalize(insert)
        var select: OpaquePointer?
        XCTAssertEqual(sqlite3_prepare_v2(db, "SELECT uri, value FROM sticker WHERE name = 'rating'", -1, &select, nil), SQLITE_OK)
        defer { sqlite3_finalize(select) }
        XCTAssertEqual(sqlite3_step(select), SQLITE_ROW)
        XCTAssertEqual(String(cString: sqlite3_column_text(select, 0)), "Ёлка/01.flac")
        XCTAssertEqual(String(cString: sqlite3_column_text(select, 1)), "5")
    }
}
