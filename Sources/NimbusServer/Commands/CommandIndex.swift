import Glibc
/// The command table's index by name, looked up with the request's bytes.
///
/// A `[String: Int]` needed a string made of every request's command word and SipHash over
/// it: together a tenth of the CPU of a `ping` in a command list. Names are known, few and
/// short, so an open-addressed table hashed with FNV-1a and checked by `memcmp`-like byte
/// comparison does the same without allocating. Hostile names cost the same as any other:
/// the hash only picks where the comparison starts.
struct CommandIndex: Sendable {
    /// Each command's name, one after another; `bounds[i]` is where command `i`'s lies.
    private let names: [UInt8]
    private let bounds: [Range<Int>]
    /// A power of two four times the commands' count or more; −1 marks an empty slot.
    private let slots: [Int16]

    init(_ names: [String]) {
        var bytes: [UInt8] = []
        var bounds: [Range<Int>] = []
        for name in names {
            let start = bytes.count
            bytes.append(contentsOf: name.utf8)
            bounds.append(start..<bytes.count)
        }
        var size = 16
        while size < names.count * 4 { size *= 2 }
        var slots = [Int16](repeating: -1, count: size)
        for (command, range) in bounds.enumerated() {
            var slot = bytes.withUnsafeBufferPointer { Self.hash(UnsafeBufferPointer(rebasing: $0[range])) } & (size - 1)
            while slots[slot] >= 0 { slot = (slot + 1) & (size - 1) }
            slots[slot] = Int16(command)
        }
        self.names = bytes
        self.bounds = bounds
        self.slots = slots
    }

    /// The position of the command named by `word`, or nil.
    func position(of word: UnsafeBufferPointer<UInt8>) -> Int? {
        let mask = slots.count - 1
        var slot = Self.hash(word) & mask
        return names.withUnsafeBufferPointer { names in
            while true {
                let command = Int(slots[slot])
                if command < 0 { return nil }
                let range = bounds[command]
                // memcmp: the generic `elementsEqual` over a slice was 2% of a `ping` in a list (perf).
                if range.count == word.count, range.isEmpty || memcmp(word.baseAddress!, names.baseAddress! + range.lowerBound, range.count) == 0 {
                    return command
                }
                slot = (slot + 1) & mask
            }
        }
    }

    private static func hash(_ bytes: UnsafeBufferPointer<UInt8>) -> Int {
        var hash: UInt32 = 2_166_136_261
        for byte in bytes { hash = (hash ^ UInt32(byte)) &* 16_777_619 }
        return Int(hash)
    }
}
