import Foundation
import NimbusModel
import NimbusStorage
import Synchronization

/// One directory of the library tree. A value type: an update copies only the paths it
/// changes, and a published snapshot never changes under a reader.
///
/// Songs keep the order in which updates found them (readdir order, new files appended),
/// and subdirectories are sorted by collation — the orders MPD keeps.
public struct LibraryDirectory: Sendable, Hashable {
    public var name: String
    public var modified: Int64
    public var identity: FileIdentity?
    public var directories: [LibraryDirectory]
    public var songs: [LibrarySong]
    /// Playlist files in the folder (`.m3u`, `.pls`, …), which MPD lists as `playlist:` and
    /// loads by their path.
    public var playlists: [LibraryPlaylist]

    public init(
        name: String, modified: Int64 = 0, identity: FileIdentity? = nil, directories: [LibraryDirectory] = [],
        songs: [LibrarySong] = [], playlists: [LibraryPlaylist] = []
    ) {
        self.name = name
        self.modified = modified
        self.identity = identity
        self.directories = directories
        self.songs = songs
        self.playlists = playlists
    }

    /// The files of this folder that its CUE sheets' tracks lie in: MPD hides them from
    /// listings and searches (`hide_playlist_targets`, default yes), their tracks standing
    /// for them; `lsinfo` of the file itself still answers. Empty for nearly every folder.
    public var playlistTargets: Set<String> {
        var targets = Set<String>()
        for child in directories where child.songs.first?.target != nil {
            for song in child.songs { if let target = song.target, !target.file.contains("/") { targets.insert(target.file) } }
        }
        return targets
    }

    /// Whether `song` is hidden as a CUE sheet's file (`targets`: `playlistTargets`, asked once).
    public static func hides(_ song: LibrarySong, _ targets: Set<String>) -> Bool {
        !targets.isEmpty && song.withName { targets.contains(String(decoding: $0, as: UTF8.self)) }
    }

    /// A folder holding only playlists is kept, as MPD keeps it.
    public var isEmpty: Bool { directories.isEmpty && songs.isEmpty && playlists.isEmpty }

    public func directory(named name: String) -> LibraryDirectory? {
        directories.first { $0.name == name }
    }

    public func song(named name: String) -> LibrarySong? {
        songs.first { $0.hasName(name) }
    }

    /// The directory at a relative path (`""` is this directory).
    public func directory(at path: String) -> LibraryDirectory? {
        guard !path.isEmpty else { return self }
        var current = self
        for component in path.split(separator: "/") {
            guard let next = current.directory(named: String(component)) else { return nil }
            current = next
        }
        return current
    }

    /// Whether `path` is a song, or a directory with songs somewhere below it.
    func hasSongs(at path: String) -> Bool {
        if let directory = directory(at: path) { return directory.songCount > 0 }
        return directory(at: StoragePath.parent(path))?.song(named: StoragePath.name(path)) != nil
    }

    public var songCount: Int {
        songs.count + directories.reduce(0) { $0 + $1.songCount }
    }

    /// MPD's Directory::Sort after an update: subdirectories by collated name; songs by album,
    /// then disc and track number, then collated file name (song_cmp in SongSort.cxx).
    mutating func sortContents() {
        directories.sort { Collation.precedes($0.name, $1.name) }
        songs.sort(by: Self.songPrecedes)
    }

    static func songPrecedes(_ lhs: LibrarySong, _ rhs: LibrarySong) -> Bool {
        let albums = compareOptional(lhs.tag.first(.album), rhs.tag.first(.album))
        if albums != .orderedSame { return albums == .orderedAscending }
        let discs = (leadingNumber(lhs.tag.first(.disc)), leadingNumber(rhs.tag.first(.disc)))
        if discs.0 != discs.1 { return discs.0 < discs.1 }
        let tracks = (leadingNumber(lhs.tag.first(.track)), leadingNumber(rhs.tag.first(.track)))
        if tracks.0 != tracks.1 { return tracks.0 < tracks.1 }
        return Collation.precedes(lhs.name, rhs.name)
    }

    /// A missing value sorts before any present one.
    private static func compareOptional(_ lhs: String?, _ rhs: String?) -> ComparisonResult {
        switch (lhs, rhs) {
        case (nil, nil): return .orderedSame
        case (nil, _): return .orderedAscending
        case (_, nil): return .orderedDescending
        case let (a?, b?): return Collation.compare(a, b)
        }
    }

    /// strtol of the value (0 when missing or not a number).
    static func leadingNumber(_ text: String?) -> Int {
        guard let text else { return 0 }
        var value = 0
        var negative = false
        var digits = text.utf8.drop { $0 == 0x20 || $0 == 0x09 }
        if digits.first == UInt8(ascii: "-") || digits.first == UInt8(ascii: "+") {
            negative = digits.first == UInt8(ascii: "-")
            digits = digits.dropFirst()
        }
        for byte in digits {
            guard byte >= 0x30 && byte <= 0x39 else { break }
            value = value &* 10 &+ Int(byte - 0x30)
        }
        return negative ? -value : value
    }
}

/// A playlist file in the music folder: its name and modification time (`Last-Modified`);
/// `Int64.min` for a song file carrying its own CUE sheet, which MPD lists without a date.
public struct LibraryPlaylist: Sendable, Hashable {
    public var name: String
    public var modified: Int64

    public init(name: String, modified: Int64) {
        self.name = name
        self.modified = modified
    }

    /// The suffixes of the playlist formats Nimbus reads (MPD's playlist plugins that read
    /// files: m3u, extm3u, pls, xspf, cue); a test keeps them equal to the parsers' own.
    public static let suffixes: Set<String> = ["m3u", "m3u8", "pls", "xspf", "cue"]

    public static func isPlaylist(_ name: String) -> Bool {
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return false }
        return suffixes.contains(name[name.index(after: dot)...].lowercased())
    }
}
