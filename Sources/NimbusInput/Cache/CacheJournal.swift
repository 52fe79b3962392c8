import Glibc
import NimbusSupport

/// The crash-safe record of which byte ranges of an entry's data file are real: an
/// append-only file of fixed 24-byte records (magic, start, end, CRC-32). A range is appended
/// only after its bytes were written and synced, so after a kill -9 or a power loss at any
/// moment every recorded range holds the right bytes; a torn last record fails its checksum
/// and is ignored, and bytes that were written but never recorded are simply fetched again.
struct CacheJournal {
    static let recordSize = 24
    private static let magic: UInt32 = 0x4E_42_52_31  // "NBR1"

    let path: String
    private var fd: Int32 = -1
    private(set) var records = 0

    init(path: String) {
        self.path = path
    }

    /// The recorded ranges (replaying the file), opening it for appending.
    mutating func open() -> RangeSet {
        var set = RangeSet()
        if let bytes = (try? AtomicFile.read(path)) ?? nil {
            var offset = 0
            while offset + Self.recordSize <= bytes.count {
                guard let range = Self.decode(bytes[offset..<(offset + Self.recordSize)]) else { break }
                set.insert(range)
                records += 1
                offset += Self.recordSize
            }
            if offset != bytes.count {
                // A torn or corrupt tail: keep what was valid, drop the rest.
                truncate(path, off_t(offset))
            }
        }
        fd = Glibc.open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0o644)
        return set
    }

    /// The ranges a journal records, read without opening it for appending.
    static func recorded(at path: String) -> RangeSet {
        var set = RangeSet()
        guard let bytes = (try? AtomicFile.read(path)) ?? nil else { return set }
        var offset = 0
        while offset + recordSize <= bytes.count, let range = decode(bytes[offset..<(offset + recordSize)]) {
            set.insert(range)
            offset += recordSize
        }
        return set
    }

    mutating func close() {
        if fd >= 0 { Glibc.close(fd) }
        fd = -1
    }

    /// Appends and syncs one record; false if the journal cannot be written (the range then
    /// stays unrecorded, which is safe).
    mutating func append(_ range: Range<Int64>) -> Bool {
        guard fd >= 0 else { return false }
        let record = Self.encode(range)
        let written = record.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        guard written == Self.recordSize, fdatasync(fd) == 0 else { return false }
        records += 1
        return true
    }

    /// Rewrites the journal as one record per merged range (atomically: temp file, sync, rename).
    mutating func compact(_ set: RangeSet) {
        var bytes: [UInt8] = []
        for range in set.ranges { bytes += Self.encode(range) }
        let temporary = path + ".compact"
        let out = Glibc.open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard out >= 0 else { return }
        let written = bytes.withUnsafeBytes { write(out, $0.baseAddress, $0.count) }
        let synced = fsync(out) == 0
        Glibc.close(out)
        guard written == bytes.count, synced, rename(temporary, path) == 0 else {
            unlink(temporary)
            return
        }
        close()
        fd = Glibc.open(path, O_WRONLY | O_APPEND | O_CLOEXEC, 0o644)
        records = set.ranges.count
    }

    private static func encode(_ range: Range<Int64>) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(recordSize)
        withUnsafeBytes(of: magic.littleEndian) { bytes += $0 }
        withUnsafeBytes(of: range.lowerBound.littleEndian) { bytes += $0 }
        withUnsafeBytes(of: range.upperBound.littleEndian) { bytes += $0 }
        withUnsafeBytes(of: CRC32.checksum(bytes).littleEndian) { bytes += $0 }
        return bytes
    }

    private static func decode(_ bytes: ArraySlice<UInt8>) -> Range<Int64>? {
        let base = bytes.startIndex
        func value<T: FixedWidthInteger>(_ offset: Int, _: T.Type) -> T {
            var result: T = 0
            withUnsafeMutableBytes(of: &result) { raw in
                for index in 0..<MemoryLayout<T>.size { raw[index] = bytes[base + offset + index] }
            }
            return T(littleEndian: result)
        }
        guard value(0, UInt32.self) == magic, value(20, UInt32.self) == CRC32.checksum(Array(bytes[base..<(base + 20)])) else {
            return nil
        }
        let start = value(4, Int64.self)
        let end = value(12, Int64.self)
        guard start >= 0, end > start else { return nil }
        return start..<end
    }
}

/// CRC-32 (IEEE), table-driven.
enum CRC32 {
    private static let table: [UInt32] = (0..<256).map { index -> UInt32 in
        var value = UInt32(index)
        for _ in 0..<8 { value = value & 1 != 0 ? 0xEDB8_8320 ^ (value >> 1) : value >> 1 }
        return value
    }

    static func checksum(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes { crc = table[Int((crc ^ UInt32(byte)) & 0xFF)] ^ (crc >> 8) }
        return crc ^ 0xFFFF_FFFF
    }
}
