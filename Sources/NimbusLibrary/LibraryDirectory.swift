import Foundation
import NimbusModel
import NimbusStorage
import Synchronization

/// A song as the database keeps it: its file name within its directory plus what the scan
/// found. The full URI is the directory path joined with the name.
///
/// Immutable and a class on purpose: queries walk every song, and handing a reference along
/// costs one retain where copying the struct retained each string and array inside it; an
/// update that keeps a song keeps the same object, so comparing trees short-cuts on identity.
public final class LibrarySong: Sendable, Hashable {
    // Stored in this order and without optionals of 9 bytes (`added`, the duration): the
    // object is 90 bytes, a 112-byte heap chunk, where the plain fields took 128.
    public let name: String
    public let modified: Int64
    /// Bytes, as the listing said (0: not known — a database written before it was kept;
    /// the next update fills it in without reading the file). The Subsonic API sends it.
    public let size: Int64
    private let addedOrMin: Int64
    private let items: [TagItem]
    /// The song as the queue and every listing take it. Made once, when first asked, and kept:
    /// queuing the library again shares it (a queue entry is then a pointer to this song's
    /// fields, not a copy of them) and costs no allocation; songs never queued cost nothing.
    private let made = Mutex<Song?>(nil)
    /// Milliseconds, `UInt32.max` for none (a song of 49 days or more is kept as just under).
    private let milliseconds: UInt32
    public let format: AudioFormat?

    /// When the song entered the database; nil for songs a version 1 database brought along.
    public var added: Int64? { addedOrMin == .min ? nil : addedOrMin }
    public var tag: Tag { Tag(items: items, duration: milliseconds == .max ? nil : Int(milliseconds)) }

    public init(name: String, modified: Int64, added: Int64? = nil, format: AudioFormat?, tag: Tag, size: Int64 = 0) {
        self.name = name
        self.modified = modified
        self.size = size
        addedOrMin = added ?? .min
        items = tag.items
        milliseconds = tag.duration.map { UInt32(clamping: min($0, Int(UInt32.max) - 1)) } ?? .max
        self.format = format
    }

    /// The same song with its size known.
    public func sized(_ size: Int64) -> LibrarySong {
        LibrarySong(name: name, modified: modified, added: added, format: format, tag: tag, size: size)
    }

    /// The same song with an equal name and tags held elsewhere (`TagValuePool`).
    func remade(name: String, tag: Tag) -> LibrarySong {
        LibrarySong(name: name, modified: modified, added: added, format: format, tag: tag, size: size)
    }

    public static func == (lhs: LibrarySong, rhs: LibrarySong) -> Bool {
        lhs === rhs
            || (lhs.name == rhs.name && lhs.modified == rhs.modified && lhs.added == rhs.added && lhs.format == rhs.format
                && lhs.size == rhs.size && lhs.milliseconds == rhs.milliseconds && lhs.items == rhs.items)
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(name)
        hasher.combine(modified)
    }

    public func song(in directory: String) -> Song {
        if let song = made.withLock({ $0 }), Self.uri(song.uri, is: directory, name) { return song }
        let song = Song(uri: StoragePath.join(directory, name), lastModified: modified, added: added, format: format, tag: tag)
        made.withLock { $0 = song }
        return song
    }

    /// Whether `uri` is `directory/name` (the kept song was made for this place), compared
    /// byte by byte without joining: two `memcmp`s over the strings' own storage (the generic
    /// `starts(with:)` over UTF-8 views was a third of an `add ""` of 50,000 songs, perf).
    private static func uri(_ uri: String, is directory: String, _ name: String) -> Bool {
        let separator = directory.isEmpty ? 0 : 1
        let directoryCount = directory.utf8.count, nameCount = name.utf8.count
        guard uri.utf8.count == directoryCount + separator + nameCount else { return false }
        // `withUTF8` on copies: a retain each, and always contiguous (no fallback path needed).
        var uri = uri, directory = directory, name = name
        return uri.withUTF8 { uriBytes in
            directory.withUTF8 { directoryBytes in
                name.withUTF8 { nameBytes in
                    (directoryCount == 0 || memcmp(uriBytes.baseAddress!, directoryBytes.baseAddress!, directoryCount) == 0)
                        && (nameCount == 0
                            || memcmp(uriBytes.baseAddress! + directoryCount + separator, nameBytes.baseAddress!, nameCount) == 0)
                }
            }
        }
    }
}

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

    public init(
        name: String, modified: Int64 = 0, identity: FileIdentity? = nil, directories: [LibraryDirectory] = [],
        songs: [LibrarySong] = []
    ) {
        self.name = name
        self.modified = modified
        self.identity = identity
        self.directories = directories
        self.songs = songs
    }

    public var isEmpty: Bool { directories.isEmpty && songs.isEmpty }

    public func directory(named name: String) -> LibraryDirectory? {
        directories.first { $0.name == name }
    }

    public func song(named name: String) -> LibrarySong? {
        songs.first { $0.name == name }
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
