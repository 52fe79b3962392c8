import NimbusModel
import NimbusStorage

/// The on-disk database: a compact binary image of the tree with a table of distinct tag
/// values (so each value is stored, and loaded, once) and a checksum over everything.
///
/// Why a file and not SQLite: queries run over the in-memory tree (as in MPD), so the file
/// only needs to load fast and be replaced atomically; a crash leaves the old or the new file.
enum DatabaseCodec {
    static let magic = Array("NIMBUSDB".utf8)
    /// 2: MPD 0.24's tag order and each song's `added` time; 3: each song's size in bytes.
    /// Versions 1 and 2 are still read.
    static let version: UInt32 = 5

    struct Header: Equatable {
        var updated: Int64
        var musicDirectory: String
    }

    static func encode(_ database: Database, musicDirectory: String) -> [UInt8] {
        var table = StringTable()
        collectStrings(database.root, into: &table)
        var writer = ByteWriter()
        writer.bytes(magic)
        writer.u32(version)
        writer.i64(database.updated)
        writer.string(musicDirectory)
        writer.u32(UInt32(table.strings.count))
        for string in table.strings { writer.string(string) }
        encode(database.root, table: table, into: &writer)
        writer.u64(Checksum.fnv1a(writer.data))
        return writer.data
    }

    static func decode(_ bytes: [UInt8]) throws(DatabaseFileError) -> (Header, Database) {
        guard bytes.count > magic.count + 12, bytes.starts(with: magic) else { throw .corrupt("not a Nimbus database") }
        let payload = bytes[..<(bytes.count - 8)]
        var trailer = ByteReader(bytes[(bytes.count - 8)...])
        guard try trailer.u64() == Checksum.fnv1a(payload) else { throw .corrupt("checksum mismatch") }
        var reader = ByteReader(payload)
        _ = try reader.bytes(magic.count)
        let fileVersion = try reader.u32()
        guard (1...version).contains(fileVersion) else { throw .corrupt("unsupported database version \(fileVersion)") }
        let header = Header(updated: try reader.i64(), musicDirectory: try reader.string())
        let count = Int(try reader.u32())
        var strings: [String] = []
        strings.reserveCapacity(count)
        for _ in 0..<count { strings.append(try reader.string()) }
        var items = SharedItems(strings: strings)
        let root = try decodeDirectory(&reader, items: &items, depth: 0, version: fileVersion)
        return (header, Database(root: root, updated: header.updated))
    }

    private static func collectStrings(_ directory: LibraryDirectory, into table: inout StringTable) {
        for song in directory.songs {
            for item in song.tag.items { _ = table.index(item.value) }
        }
        for child in directory.directories { collectStrings(child, into: &table) }
    }

    private static func encode(_ directory: LibraryDirectory, table: StringTable, into writer: inout ByteWriter) {
        writer.string(directory.name)
        writer.i64(directory.modified)
        writer.u64(directory.identity?.device ?? UInt64.max)
        writer.u64(directory.identity?.inode ?? UInt64.max)
        writer.u32(UInt32(directory.songs.count))
        for song in directory.songs {
            song.withName { writer.string($0) }
            writer.i64(song.modified)
            writer.i64(song.added ?? -1)
            writer.i64(song.size)
            if let format = song.format {
                writer.u32(format.sampleRate)
                writer.u8(format.sample.rawValue)
                writer.u8(format.channels)
            } else {
                writer.u32(0)
            }
            writer.i64(Int64(song.tag.duration ?? -1))
            writer.u32(UInt32(song.tag.items.count))
            for item in song.tag.items {
                writer.u8(item.type.rawValue)
                writer.u32(UInt32(table.lookup[item.value]!))
            }
            if let target = song.target {
                writer.u8(1)
                writer.string(target.file)
                writer.i64(Int64(target.start))
                writer.i64(Int64(target.end ?? -1))
            } else {
                writer.u8(0)
            }
        }
        writer.u32(UInt32(directory.directories.count))
        for child in directory.directories { encode(child, table: table, into: &writer) }
        writer.u32(UInt32(directory.playlists.count))
        for playlist in directory.playlists {
            writer.string(playlist.name)
            writer.i64(playlist.modified)
        }
    }

    private static func decodeDirectory(
        _ reader: inout ByteReader, items shared: inout SharedItems, depth: Int, version: UInt32
    ) throws(DatabaseFileError)
        -> LibraryDirectory
    {
        guard depth < 256 else { throw .corrupt("directory nesting too deep") }
        var directory = LibraryDirectory(name: try reader.string(), modified: try reader.i64())
        let device = try reader.u64()
        let inode = try reader.u64()
        if device != UInt64.max { directory.identity = FileIdentity(device: device, inode: inode) }
        let songCount = Int(try reader.u32())
        directory.songs.reserveCapacity(songCount)
        for _ in 0..<songCount {
            let name = try reader.string()
            let modified = try reader.i64()
            let added = version >= 2 ? try reader.i64() : -1
            let size = version >= 3 ? try reader.i64() : 0
            var format: AudioFormat?
            let rate = try reader.u32()
            if rate != 0 {
                guard let sample = SampleFormat(rawValue: try reader.u8()) else { throw .corrupt("bad sample format") }
                format = AudioFormat(sampleRate: rate, sample: sample, channels: try reader.u8())
            }
            let duration = try reader.i64()
            let itemCount = Int(try reader.u32())
            var items: [TagItem] = []
            items.reserveCapacity(itemCount)
            for _ in 0..<itemCount {
                let raw = Int(try reader.u8())
                let known = version >= 2 ? TagType(rawValue: UInt8(raw)) : raw < TagType.mpd023Order.count ? TagType.mpd023Order[raw] : nil
                guard let type = known else { throw .corrupt("bad tag type") }
                let index = Int(try reader.u32())
                guard let item = shared.item(type, index) else { throw .corrupt("bad string index") }
                items.append(item)
            }
            var target: LibraryTarget?
            if version >= 5, try reader.u8() == 1 {
                let file = try reader.string()
                let start = try reader.i64()
                let end = try reader.i64()
                guard start >= 0, start < Int64(Int32.max), end < Int64(Int32.max) else { throw .corrupt("bad CUE track range") }
                target = LibraryTarget(file: file, start: Int(start), end: end < 0 ? nil : Int(end))
            }
            directory.songs.append(
                LibrarySong.make(
                    name: name, modified: modified, added: added < 0 ? nil : added, format: format,
                    tag: Tag(items: items, duration: duration < 0 ? nil : Int(duration)), size: max(0, size), target: target))
        }
        let childCount = Int(try reader.u32())
        for _ in 0..<childCount {
            directory.directories.append(try decodeDirectory(&reader, items: &shared, depth: depth + 1, version: version))
        }
        if version >= 4 {
            let playlistCount = Int(try reader.u32())
            guard playlistCount <= 1 << 20 else { throw .corrupt("\(playlistCount) playlists in one folder") }
            for _ in 0..<playlistCount {
                directory.playlists.append(LibraryPlaylist(name: try reader.string(), modified: try reader.i64()))
            }
        }
        return directory
    }
}

/// The file's string table made into tag items, one per (type, string) however many songs
/// hold it, as the file keeps each string once: the loaded songs share them (`TagItem`).
private struct SharedItems {
    let strings: [String]
    private var made: [Int: TagItem] = [:]

    init(strings: [String]) { self.strings = strings }

    mutating func item(_ type: TagType, _ index: Int) -> TagItem? {
        guard index < strings.count else { return nil }
        let key = index &* 256 &+ Int(type.rawValue)
        if let item = made[key] { return item }
        let item = TagItem(type, strings[index])
        made[key] = item
        return item
    }
}

public enum DatabaseFileError: Error, CustomStringConvertible {
    case corrupt(String)
    case io(String)

    public var description: String {
        switch self {
        case .corrupt(let reason): return "corrupt database: \(reason)"
        case .io(let reason): return reason
        }
    }
}

private struct StringTable {
    private(set) var strings: [String] = []
    private(set) var lookup: [String: Int] = [:]

    mutating func index(_ string: String) -> Int {
        if let index = lookup[string] { return index }
        strings.append(string)
        lookup[string] = strings.count - 1
        return strings.count - 1
    }
}

struct ByteWriter {
    private(set) var data: [UInt8] = []

    mutating func bytes(_ bytes: [UInt8]) { data.append(contentsOf: bytes) }
    mutating func u8(_ value: UInt8) { data.append(value) }
    mutating func u32(_ value: UInt32) { withUnsafeBytes(of: value.littleEndian) { data.append(contentsOf: $0) } }
    mutating func u64(_ value: UInt64) { withUnsafeBytes(of: value.littleEndian) { data.append(contentsOf: $0) } }
    mutating func i64(_ value: Int64) { u64(UInt64(bitPattern: value)) }
    mutating func string(_ value: String) {
        var value = value
        value.withUTF8 { string($0) }
    }
    mutating func string(_ utf8: UnsafeBufferPointer<UInt8>) {
        u32(UInt32(utf8.count))
        data.append(contentsOf: utf8)
    }
}

struct ByteReader {
    private let bytes: ArraySlice<UInt8>
    private var offset: Int

    init(_ bytes: ArraySlice<UInt8>) {
        self.bytes = bytes
        self.offset = bytes.startIndex
    }

    mutating func bytes(_ count: Int) throws(DatabaseFileError) -> ArraySlice<UInt8> {
        guard count >= 0, offset + count <= bytes.endIndex else { throw .corrupt("truncated") }
        defer { offset += count }
        return bytes[offset..<(offset + count)]
    }

    mutating func u8() throws(DatabaseFileError) -> UInt8 { try bytes(1).first! }

    mutating func u32() throws(DatabaseFileError) -> UInt32 {
        try bytes(4).reversed().reduce(0) { $0 << 8 | UInt32($1) }
    }

    mutating func u64() throws(DatabaseFileError) -> UInt64 {
        try bytes(8).reversed().reduce(0) { $0 << 8 | UInt64($1) }
    }

    mutating func i64() throws(DatabaseFileError) -> Int64 { Int64(bitPattern: try u64()) }

    mutating func string() throws(DatabaseFileError) -> String {
        let count = Int(try u32())
        let raw = try bytes(count)
        return String(decoding: raw, as: UTF8.self)
    }
}

enum Checksum {
    static func fnv1a<C: Collection>(_ bytes: C) -> UInt64 where C.Element == UInt8 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes {
            hash ^= UInt64(byte)
            hash = hash &* 0x100_0000_01b3
        }
        return hash
    }
}
