import CSQLite
import NimbusSupport

/// Stickers (name=value pairs attached to songs) in an SQLite file with MPD's own schema, so
/// an existing MPD `sticker_file` keeps working. SQLite's journal makes every change atomic:
/// after a kill -9 the file holds each sticker as it was before or after the change.
///
/// Queries are short and run on the core thread, as in MPD; the database is in WAL mode with
/// `synchronous=NORMAL`, so a change costs no fsync of its own (a crash keeps the file
/// consistent; only the last changes before a power loss could be lost).
public final class StickerStore {
    public typealias Failure = DomainError<StickerStore>

    /// `sticker find`'s comparisons in MPD 0.23 (string comparisons, as SQLite does them).
    public enum Comparison: String, Sendable {
        case equal = "="
        case less = "<"
        case greater = ">"
    }

    private var db: OpaquePointer?

    public init(path: String) throws(Failure) {
        guard sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, nil) == SQLITE_OK else {
            // `deinit` closes the handle (it runs when this initializer throws): not here too.
            let message = db.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
            throw Failure("Failed to open sticker database \"\(path)\": \(message)")
        }
        sqlite3_busy_timeout(db, 2000)
        // A file that is not a database, or a damaged one, is refused here rather than failing
        // every later command; the file itself is left as it is for the user to repair.
        do throws(Failure) {
            let check = try query("PRAGMA quick_check", [])
            guard check.first?.first == "ok" else { throw Failure(check.first?.first ?? "damaged") }
        } catch {
            throw Failure("sticker database \(path) is not a database (\(error.message)); stickers disabled until it is repaired")
        }
        try execute("PRAGMA journal_mode=WAL")
        try execute("PRAGMA synchronous=NORMAL")
        try execute(
            """
            CREATE TABLE IF NOT EXISTS sticker(
              type VARCHAR NOT NULL, uri VARCHAR NOT NULL, name VARCHAR NOT NULL, value VARCHAR NOT NULL);
            CREATE UNIQUE INDEX IF NOT EXISTS sticker_value ON sticker(type, uri, name);
            CREATE INDEX IF NOT EXISTS sticker_uri ON sticker(type, uri);
            """)
    }

    deinit { sqlite3_close(db) }

    /// Moves everything from the write-ahead log into the database file (at shutdown), so the
    /// file alone holds every sticker, as users who copy `sticker_file` expect.
    public func checkpoint() {
        try? execute("PRAGMA wal_checkpoint(TRUNCATE)")
    }

    public func get(type: String, uri: String, name: String) throws(Failure) -> String? {
        try query("SELECT value FROM sticker WHERE type=? AND uri=? AND name=?", [type, uri, name]).first?[0]
    }

    /// Every sticker of a song, by name (the index's order, as MPD lists them).
    public func list(type: String, uri: String) throws(Failure) -> [(name: String, value: String)] {
        try query("SELECT name,value FROM sticker WHERE type=? AND uri=? ORDER BY name", [type, uri]).map { ($0[0], $0[1]) }
    }

    /// Like MPD, a sticker without a name is silently not stored.
    public func set(type: String, uri: String, name: String, value: String) throws(Failure) {
        guard !name.isEmpty else { return }
        let changed = try change("UPDATE sticker SET value=? WHERE type=? AND uri=? AND name=?", [value, type, uri, name])
        if changed == 0 {
            _ = try change("INSERT INTO sticker(type,uri,name,value) VALUES(?, ?, ?, ?)", [type, uri, name, value])
        }
    }

    /// False when there was nothing to delete.
    public func delete(type: String, uri: String, name: String? = nil) throws(Failure) -> Bool {
        if let name {
            return try change("DELETE FROM sticker WHERE type=? AND uri=? AND name=?", [type, uri, name]) > 0
        }
        return try change("DELETE FROM sticker WHERE type=? AND uri=?", [type, uri]) > 0
    }

    /// Stickers called `name` on songs below `base` ("" for all), optionally compared with
    /// `value`. Like MPD this matches URIs by prefix with SQL's LIKE.
    public func find(type: String, base: String, name: String, comparison: (Comparison, String)? = nil) throws(Failure)
        -> [(uri: String, value: String)]
    {
        let prefix = base.isEmpty ? "" : base + "/"
        var sql = "SELECT uri,value FROM sticker WHERE type=? AND uri LIKE (? || '%') AND name=?"
        var parameters = [type, prefix, name]
        if let (comparison, value) = comparison {
            sql += " AND value\(comparison.rawValue)?"
            parameters.append(value)
        }
        return try query(sql, parameters).map { ($0[0], $0[1]) }
    }

    // MARK: SQLite

    private func execute(_ sql: String) throws(Failure) {
        guard sqlite3_exec(db, sql, nil, nil, nil) == SQLITE_OK else { throw failure() }
    }

    private func prepare(_ sql: String, _ parameters: [String]) throws(Failure) -> OpaquePointer {
        var statement: OpaquePointer?
        guard sqlite3_prepare_v2(db, sql, -1, &statement, nil) == SQLITE_OK, let statement else { throw failure() }
        for (index, parameter) in parameters.enumerated() {
            guard csqlite_bind_text_transient(statement, Int32(index + 1), parameter, -1) == SQLITE_OK else {
                sqlite3_finalize(statement)
                throw failure()
            }
        }
        return statement
    }

    private func query(_ sql: String, _ parameters: [String]) throws(Failure) -> [[String]] {
        let statement = try prepare(sql, parameters)
        defer { sqlite3_finalize(statement) }
        var rows: [[String]] = []
        while true {
            let status = sqlite3_step(statement)
            if status == SQLITE_DONE { return rows }
            guard status == SQLITE_ROW else { throw failure() }
            let columns = sqlite3_column_count(statement)
            rows.append((0..<columns).map { column in
                sqlite3_column_text(statement, column).map { String(cString: $0) } ?? ""
            })
        }
    }

    private func change(_ sql: String, _ parameters: [String]) throws(Failure) -> Int {
        let statement = try prepare(sql, parameters)
        defer { sqlite3_finalize(statement) }
        guard sqlite3_step(statement) == SQLITE_DONE else { throw failure() }
        return Int(sqlite3_changes(db))
    }

    private func failure() -> Failure {
        Failure("sticker database: " + String(cString: sqlite3_errmsg(db)))
    }
}
