import CSQLite
import NimbusSupport

/// Stickers (name=value pairs attached to songs, playlists, tag values and filters) in an SQLite file with MPD's own schema, so
/// an existing MPD `sticker_file` keeps working. SQLite's journal makes every change atomic:
/// after a kill -9 the file holds each sticker as it was before or after the change.
///
/// Queries are short and run on the core thread, as in MPD; the database is in WAL mode with
/// `synchronous=NORMAL`, so a change costs no fsync of its own (a crash keeps the file
/// consistent; only the last changes before a power loss could be lost).
public final class StickerStore {
    public typealias Failure = DomainError<StickerStore>

    /// `sticker find`'s comparisons in MPD 0.24: `=`, `<`, `>` compare strings as SQLite does,
    /// `eq`, `lt`, `gt` compare the values as integers, `contains` and `starts_with` use LIKE
    /// (so they ignore ASCII case, as in MPD).
    public enum Comparison: String, Sendable, CaseIterable {
        case equal = "="
        case less = "<"
        case greater = ">"
        case equalInteger = "eq"
        case lessInteger = "lt"
        case greaterInteger = "gt"
        case contains
        case startsWith = "starts_with"

        var sql: String {
            switch self {
            case .equal: return "value=?"
            case .less: return "value<?"
            case .greater: return "value>?"
            case .equalInteger: return "CAST(value AS INT)=?"
            case .lessInteger: return "CAST(value AS INT)<?"
            case .greaterInteger: return "CAST(value AS INT)>?"
            case .contains: return "value LIKE ('%' || ? || '%')"
            case .startsWith: return "value LIKE (? || '%')"
            }
        }
    }

    /// `sticker find … sort uri|value|value_int`.
    public enum FindOrder: String, Sendable {
        case uri, value
        case valueInteger = "value_int"

        var sql: String { self == .valueInteger ? "CAST(value AS INT)" : rawValue }
    }

    private var db: OpaquePointer?

    /// SQLite's default gives each connection a bulk block for its first pages (87 KB,
    /// heaptrack) — for a sticker file of a few pages, memory held for nothing on a small box.
    private static let footprint: Void = { _ = csqlite_page_cache_on_demand() }()

    public init(path: String) throws(Failure) {
        Self.footprint
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
        _ = try change(
            "INSERT INTO sticker(type,uri,name,value) VALUES(?, ?, ?, ?) ON CONFLICT(type,uri,name) DO UPDATE SET value=?",
            [type, uri, name, value, value])
    }

    /// `sticker inc|dec` (MPD 0.24): SQLite's arithmetic on the stored text, so a missing
    /// sticker starts from the given value and a non-number counts as 0.
    public func add(type: String, uri: String, name: String, value: String, subtract: Bool = false) throws(Failure) {
        guard !name.isEmpty else { return }
        _ = try change(
            "INSERT INTO sticker(type,uri,name,value) VALUES(?, ?, ?, ?) ON CONFLICT(type,uri,name) DO UPDATE SET value=value\(subtract ? "-" : "+")?",
            [type, uri, name, value, value])
    }

    /// False when there was nothing to delete.
    public func delete(type: String, uri: String, name: String? = nil) throws(Failure) -> Bool {
        if let name {
            return try change("DELETE FROM sticker WHERE type=? AND uri=? AND name=?", [type, uri, name]) > 0
        }
        return try change("DELETE FROM sticker WHERE type=? AND uri=?", [type, uri]) > 0
    }

    /// Stickers called `name` whose URI starts with `prefix` (SQL's LIKE, as MPD matches it),
    /// optionally compared with a value, sorted and windowed in SQL as MPD 0.24 does.
    public func find(
        type: String, prefix: String, name: String, comparison: (Comparison, String)? = nil,
        order: (FindOrder, descending: Bool)? = nil, window: (offset: Int, limit: Int?)? = nil
    ) throws(Failure) -> [(uri: String, value: String)] {
        var sql = "SELECT uri,value FROM sticker WHERE type=? AND uri LIKE (? || '%') AND name=?"
        var parameters = [type, prefix, name]
        if let (comparison, value) = comparison {
            sql += " AND " + comparison.sql
            parameters.append(value)
        }
        if let (order, descending) = order { sql += " ORDER BY \(order.sql) \(descending ? "desc" : "asc")" }
        if let window { sql += " LIMIT \(window.limit ?? -1) OFFSET \(window.offset)" }
        return try query(sql, parameters).map { ($0[0], $0[1]) }
    }

    /// Every sticker name in use, sorted (`stickernames`).
    public func names() throws(Failure) -> [String] {
        try query("SELECT DISTINCT name FROM sticker ORDER BY name", []).map { $0[0] }
    }

    /// Names with the types they are used on, optionally of one type (`stickernamestypes`).
    public func namesAndTypes(type: String? = nil) throws(Failure) -> [(name: String, type: String)] {
        let rows: [[String]]
        if let type {
            rows = try query("SELECT name,type FROM sticker WHERE type=? GROUP BY name,type ORDER BY name", [type])
        } else {
            rows = try query("SELECT name,type FROM sticker GROUP BY name,type ORDER BY name", [])
        }
        return rows.map { ($0[0], $0[1]) }
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
