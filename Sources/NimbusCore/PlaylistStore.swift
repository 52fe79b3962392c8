import Glibc
import NimbusModel
import NimbusSupport

/// Stored playlists: `NAME.m3u` files in the playlist directory, one URI per line, as MPD
/// writes them, so a playlist directory can be shared with MPD in both directions. Every
/// change rewrites the file atomically; entries whose songs are gone are kept (they may come
/// back with the next update, or live on a cloud account that is offline).
public struct PlaylistStore: Sendable {
    public enum Failure: Error, Equatable {
        case noSuchPlaylist
        case playlistExists
        case renameTargetExists
        case badName
        case badSongIndex
        case badPosition
        case badRange
        case tooLarge
        case io(String)
    }

    public let directory: String
    public let maxLength: Int
    /// The music directory, to shorten absolute paths written by other programs and to
    /// write absolute paths when `save_absolute_paths_in_playlists` asks for them.
    public let musicDirectory: String?
    public let absolutePaths: Bool
    private let logger: Logger

    public init(
        directory: String, maxLength: Int = 16384, musicDirectory: String? = nil, absolutePaths: Bool = false,
        logger: Logger = .silent
    ) {
        self.logger = logger
        self.directory = directory
        self.maxLength = maxLength
        self.musicDirectory = musicDirectory.map { $0.hasSuffix("/") ? String($0.dropLast()) : $0 }
        self.absolutePaths = absolutePaths
    }

    /// MPD's spl_valid_name: not empty, no slash, no line breaks.
    public static func isValidName(_ name: String) -> Bool {
        !name.isEmpty && !name.utf8.contains { $0 == UInt8(ascii: "/") || $0 == 10 || $0 == 13 }
    }

    private func path(_ name: String) throws(Failure) -> String {
        guard Self.isValidName(name) else { throw .badName }
        return directory + "/" + name + ".m3u"
    }

    // MARK: reading

    /// Name and modification time (UNIX seconds) of every playlist, in directory order.
    public func list() -> [(name: String, modified: Int64)] {
        guard let handle = opendir(directory) else { return [] }
        defer { closedir(handle) }
        var result: [(name: String, modified: Int64)] = []
        while let entry = readdir(handle) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(cString: $0.bindMemory(to: CChar.self).baseAddress!) }
            guard name.hasSuffix(".m3u"), name.count > 4 else { continue }
            var info = stat()
            guard stat(directory + "/" + name, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { continue }
            result.append((String(name.dropLast(4)), Int64(info.st_mtim.tv_sec)))
        }
        return result
    }

    public func exists(_ name: String) -> Bool {
        guard let path = try? path(name) else { return false }
        return access(path, F_OK) == 0
    }

    /// The entries of a playlist (URIs relative to the music directory, or URLs).
    public func load(_ name: String) throws(Failure) -> [String] {
        // Reading a name that cannot be a playlist finds no playlist, as in MPD (`load "../x"`).
        guard Self.isValidName(name) else { throw .noSuchPlaylist }
        let path = try path(name)
        let bytes: [UInt8]?
        do { bytes = try AtomicFile.read(path) } catch { throw .io(error.description) }
        guard let bytes else { throw .noSuchPlaylist }
        var entries: [String] = []
        for (index, line) in bytes.split(separator: 10, omittingEmptySubsequences: false).enumerated() {
            // A damaged line is named in the log and left out; the file itself is left alone.
            guard !line.contains(0), var text = String(validating: line, as: UTF8.self) else {
                logger.error("playlist \(path) line \(index + 1) is not valid UTF-8 text; skipped")
                continue
            }
            if text.hasSuffix("\r") { text.removeLast() }
            guard !text.isEmpty, !text.hasPrefix("#") else { continue }
            entries.append(relative(text))
            if entries.count >= maxLength { break }
        }
        return entries
    }

    private func relative(_ entry: String) -> String {
        guard let musicDirectory, entry.hasPrefix(musicDirectory + "/") else { return entry }
        return String(entry.dropFirst(musicDirectory.count + 1))
    }

    // MARK: writing

    public func create(_ name: String, entries: [String]) throws(Failure) {
        try save(name, entries: entries, mode: .create)
    }

    /// MPD 0.24's `save` modes: a new playlist, or one that must exist to be appended to or
    /// replaced.
    public enum SaveMode: String, Sendable {
        case create, append, replace
    }

    public func save(_ name: String, entries: [String], mode: SaveMode) throws(Failure) {
        let path = try path(name)
        let exists = access(path, F_OK) == 0
        switch mode {
        case .create:
            guard !exists else { throw .playlistExists }
            try write(entries, to: path)
        case .append:
            guard exists else { throw .noSuchPlaylist }
            try write(try load(name) + entries, to: path)
        case .replace:
            guard exists else { throw .noSuchPlaylist }
            try write(entries, to: path)
        }
    }

    /// Inserts at `position` (appends when nil); creates the playlist when missing.
    public func add(_ name: String, entries: [String], at position: Int? = nil) throws(Failure) {
        let path = try path(name)
        var current: [String]
        do { current = try load(name) } catch .noSuchPlaylist { current = [] }
        guard current.count + entries.count <= maxLength else { throw .tooLarge }
        if let position {
            guard position <= current.count else { throw .badPosition }
            current.insert(contentsOf: entries, at: position)
        } else {
            current += entries
        }
        try write(current, to: path)
    }

    public func clear(_ name: String) throws(Failure) {
        let path = try path(name)
        guard access(path, F_OK) == 0 else { throw .noSuchPlaylist }
        try write([], to: path)
    }

    public func delete(_ name: String, range: Range<Int>) throws(Failure) {
        var entries = try load(name)
        guard range.upperBound <= entries.count, !range.isEmpty || range.lowerBound <= entries.count else {
            throw .badSongIndex
        }
        entries.removeSubrange(range)
        try write(entries, to: try path(name))
    }

    public func move(_ name: String, from: Int, to: Int) throws(Failure) {
        try move(name, range: from..<(from + 1), to: to)
    }

    /// Moves `range` so it starts at `to` in the playlist without it (MPD 0.24's MoveIndex).
    public func move(_ name: String, range: Range<Int>, to: Int) throws(Failure) {
        var entries = try load(name)
        guard range.upperBound <= entries.count, to <= entries.count - range.count else { throw .badRange }
        let moved = Array(entries[range])
        entries.removeSubrange(range)
        entries.insert(contentsOf: moved, at: to)
        try write(entries, to: try path(name))
    }

    public func rename(_ name: String, to newName: String) throws(Failure) {
        let source = try path(name)
        let target = try path(newName)
        guard access(target, F_OK) != 0 else { throw .renameTargetExists }
        guard access(source, F_OK) == 0 else { throw .noSuchPlaylist }
        guard Glibc.rename(source, target) == 0 else { throw .io(SystemError("Failed to rename \"\(source)\"").description) }
        AtomicFile.syncDirectory(of: target)
    }

    public func remove(_ name: String) throws(Failure) {
        let path = try path(name)
        guard unlink(path) == 0 else {
            if errno == ENOENT { throw .noSuchPlaylist }
            throw .io(SystemError("Failed to delete \"\(path)\"").description)
        }
    }

    private func write(_ entries: [String], to path: String) throws(Failure) {
        var text = ""
        for entry in entries {
            if absolutePaths, let musicDirectory, !Song.isURL(entry), !entry.hasPrefix("/") {
                text += musicDirectory + "/" + entry
            } else {
                text += entry
            }
            text += "\n"
        }
        do { try AtomicFile.write(Array(text.utf8), to: path) } catch { throw .io(error.description) }
    }
}
