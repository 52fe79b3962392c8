import Glibc
import NimbusModel
import Synchronization

/// A song as the database keeps it: its file name within its directory plus what the scan
/// found. The full URI is the directory path joined with the name.
///
/// Immutable and a class on purpose: queries walk every song, and handing a reference along
/// costs one retain where copying the struct retained each string and array inside it; an
/// update that keeps a song keeps the same object, so comparing trees short-cuts on identity.
///
/// One heap block per song, as MPD's `Song` with its URI after it: the fields, then the
/// name's UTF-8 bytes in the same allocation (a `ManagedBuffer`). A `String` field cost a
/// second block — 64 bytes for a 17-byte name — beside the 112 of the object (heaptrack, 50,000
/// songs); now a song with such a name is one 96-byte block. `name` makes a `String` when
/// asked; lookups, URIs and the database file read the bytes in place.
///
/// A struct around the block: `ManagedBuffer` cannot be `Sendable`, and the reference is all
/// a song is (copying one is a retain; `===` says whether two are the same block).
public struct LibrarySong: @unchecked Sendable, Hashable {
    // @unchecked: every field is immutable after `make` except `made`, which is only read and
    // written under `LibrarySong.madeLocks`.
    final class Storage: ManagedBuffer<LibrarySongFields, UInt8> {}
    private let storage: Storage

    public static func === (lhs: LibrarySong, rhs: LibrarySong) -> Bool { lhs.storage === rhs.storage }

    public static func make(
        name: String, modified: Int64, added: Int64? = nil, format: AudioFormat?, tag: Tag, size: Int64 = 0, target: LibraryTarget? = nil
    ) -> LibrarySong {
        var name = name
        return name.withUTF8 { bytes in
            make(name: bytes, modified: modified, added: added, format: format, tag: tag, size: size, target: target)
        }
    }

    static func make(
        name: UnsafeBufferPointer<UInt8>, modified: Int64, added: Int64?, format: AudioFormat?, tag: Tag, size: Int64,
        target: LibraryTarget? = nil
    ) -> LibrarySong {
        let fields = LibrarySongFields(
            modified: modified, size: size, addedOrMin: added ?? .min, items: tag.items, target: target,
            milliseconds: tag.duration.map { UInt32(clamping: min($0, Int(UInt32.max) - 1)) } ?? .max,
            sampleRate: format?.sampleRate ?? 0, nameCount: UInt32(name.count),
            sample: format?.sample.rawValue ?? 0, channels: format?.channels ?? 0)
        let storage = unsafeDowncast(Storage.create(minimumCapacity: name.count) { _ in fields }, to: Storage.self)
        if let base = name.baseAddress, !name.isEmpty {
            storage.withUnsafeMutablePointerToElements { $0.initialize(from: base, count: name.count) }
        }
        return LibrarySong(storage: storage)
    }

    private init(storage: Storage) { self.storage = storage }

    /// The fields in place; valid while `storage` is (the block never moves).
    private var fields: UnsafeMutablePointer<LibrarySongFields> { storage.withUnsafeMutablePointerToHeader { $0 } }

    /// The name's UTF-8 bytes, in place (valid for the closure's length).
    public func withName<Result>(_ body: (UnsafeBufferPointer<UInt8>) throws -> Result) rethrows -> Result {
        let count = Int(fields.pointee.nameCount)
        return try storage.withUnsafeMutablePointerToElements { try body(UnsafeBufferPointer(start: $0, count: count)) }
    }

    public var name: String { withName { String(decoding: $0, as: UTF8.self) } }

    /// Whether the name is `other`, byte for byte and without making a `String`.
    public func hasName(_ other: String) -> Bool {
        var other = other
        return other.withUTF8 { theirs in withName { Self.same($0, theirs) } }
    }

    public var modified: Int64 { fields.pointee.modified }
    /// Bytes, as the listing said (0: not known — a database written before it was kept;
    /// the next update fills it in without reading the file). The Subsonic API sends it.
    public var size: Int64 { fields.pointee.size }
    /// When the song entered the database; nil for songs a version 1 database brought along.
    public var added: Int64? { fields.pointee.addedOrMin == .min ? nil : fields.pointee.addedOrMin }
    // Each field is read on its own: a copy of the whole `pointee` would read `made` unlocked.
    public var tag: Tag {
        let milliseconds = fields.pointee.milliseconds
        return Tag(items: fields.pointee.items, duration: milliseconds == .max ? nil : Int(milliseconds))
    }
    /// A CUE track's file and range; nil for a song that is its own file.
    public var target: LibraryTarget? { fields.pointee.target }

    public var format: AudioFormat? {
        let fields = fields
        guard fields.pointee.sampleRate != 0, let sample = SampleFormat(rawValue: fields.pointee.sample) else { return nil }
        return AudioFormat(sampleRate: fields.pointee.sampleRate, sample: sample, channels: fields.pointee.channels)
    }

    /// The same song with its size known.
    public func sized(_ size: Int64) -> LibrarySong {
        withName { .make(name: $0, modified: modified, added: added, format: format, tag: tag, size: size, target: target) }
    }

    /// The same song (its name copied into a new block) with tags held elsewhere (`TagValuePool`).
    func remade(tag: Tag) -> LibrarySong {
        withName { .make(name: $0, modified: modified, added: added, format: format, tag: tag, size: size, target: target) }
    }

    public static func == (lhs: LibrarySong, rhs: LibrarySong) -> Bool {
        guard lhs.storage !== rhs.storage else { return true }
        let (a, b) = (lhs.fields, rhs.fields)
        return a.pointee.modified == b.pointee.modified && a.pointee.size == b.pointee.size
            && a.pointee.addedOrMin == b.pointee.addedOrMin && a.pointee.milliseconds == b.pointee.milliseconds
            && a.pointee.sampleRate == b.pointee.sampleRate && a.pointee.sample == b.pointee.sample
            && a.pointee.channels == b.pointee.channels && a.pointee.items == b.pointee.items && a.pointee.target == b.pointee.target
            && lhs.withName { mine in rhs.withName { same(mine, $0) } }
    }

    public func hash(into hasher: inout Hasher) {
        withName { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
        hasher.combine(modified)
    }

    // MARK: the song the queue takes

    /// Guards every song's `made` (striped by address: the cache is read once per song of an
    /// `add`, and a lock per song would cost 16 bytes of each).
    private static let madeLocks: [MadeLock] = (0..<16).map { _ in MadeLock() }
    private final class MadeLock: Sendable { let mutex = Mutex<Void>(()) }
    private var madeLock: MadeLock { Self.madeLocks[(ObjectIdentifier(storage).hashValue >> 7) & 15] }

    /// The song as the queue and every listing take it. Made once, when first asked, and kept:
    /// queuing the library again shares it (a queue entry is then a pointer to this song's
    /// fields, not a copy of them) and costs no allocation; songs never queued cost nothing.
    public func song(in directory: String) -> Song {
        let fields = fields
        if let song = madeLock.mutex.withLock({ _ in fields.pointee.made }), isURI(song.uri, in: directory) { return song }
        let song = withName {
            Song(
                uri: StoragePath.join(directory, $0), lastModified: modified, added: added, format: format, tag: tag,
                target: target.map { SongTarget(uri: StoragePath.join(StoragePath.parent(directory), $0.file), start: $0.start, end: $0.end) })
        }
        madeLock.mutex.withLock { _ in fields.pointee.made = song }
        return song
    }

    /// Whether `uri` is `directory/name` (the kept song was made for this place), compared
    /// byte by byte without joining: two `memcmp`s over the strings' own storage (the generic
    /// `starts(with:)` over UTF-8 views was a third of an `add ""` of 50,000 songs, perf).
    private func isURI(_ uri: String, in directory: String) -> Bool {
        let separator = directory.isEmpty ? 0 : 1
        let directoryCount = directory.utf8.count
        // `withUTF8` on copies: a retain each, and always contiguous (no fallback path needed).
        var uri = uri, directory = directory
        return withName { name in
            guard uri.utf8.count == directoryCount + separator + name.count else { return false }
            return uri.withUTF8 { uriBytes in
                directory.withUTF8 { directoryBytes in
                    Self.same(UnsafeBufferPointer(rebasing: uriBytes[..<directoryCount]), directoryBytes)
                        && Self.same(UnsafeBufferPointer(rebasing: uriBytes[(directoryCount + separator)...]), name)
                }
            }
        }
    }

    private static func same(_ a: UnsafeBufferPointer<UInt8>, _ b: UnsafeBufferPointer<UInt8>) -> Bool {
        a.count == b.count && (a.isEmpty || memcmp(a.baseAddress!, b.baseAddress!, a.count) == 0)
    }
}

/// A `LibrarySong`'s fields, before its name: 62 bytes (8 of them a CUE track's target, nil
/// for other songs), laid out widest first with the
/// format's three parts apart (a sample rate of 0 is no format, as in the database file).
struct LibrarySongFields {
    let modified: Int64
    let size: Int64
    let addedOrMin: Int64
    let items: [TagItem]
    let target: LibraryTarget?
    var made: Song?
    /// Milliseconds, `UInt32.max` for none (a song of 49 days or more is kept as just under).
    let milliseconds: UInt32
    let sampleRate: UInt32
    let nameCount: UInt32
    let sample: UInt8
    let channels: UInt8

    init(
        modified: Int64, size: Int64, addedOrMin: Int64, items: [TagItem], target: LibraryTarget?, milliseconds: UInt32,
        sampleRate: UInt32, nameCount: UInt32, sample: UInt8, channels: UInt8
    ) {
        self.target = target
        self.modified = modified
        self.size = size
        self.addedOrMin = addedOrMin
        self.items = items
        made = nil
        self.milliseconds = milliseconds
        self.sampleRate = sampleRate
        self.nameCount = nameCount
        self.sample = sample
        self.channels = channels
    }
}

/// Where a CUE track's audio lies: the file, named as the sheet names it relative to the
/// sheet's folder (the virtual folder's parent), and the part of it in milliseconds. A class:
/// one pointer in every song, nil for songs that are their own file.
public final class LibraryTarget: Sendable, Equatable {
    public let file: String
    public let start: Int
    public let end: Int?

    public init(file: String, start: Int, end: Int?) {
        self.file = file
        self.start = start
        self.end = end
    }

    public static func == (lhs: LibraryTarget, rhs: LibraryTarget) -> Bool {
        lhs === rhs || (lhs.file == rhs.file && lhs.start == rhs.start && lhs.end == rhs.end)
    }
}
