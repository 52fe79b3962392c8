import Synchronization

/// Scaled covers kept in memory, least recently used out first, bounded in bytes: the grid
/// asks for the same few hundred tiles every time someone opens the Library, and scaling a
/// large picture costs tens of milliseconds. A miss (`nil` stored) is remembered too, so an
/// album without a cover is not read again on every visit.
public final class CoverMemory: Sendable {
    public let capacity: Int
    private let state = Mutex(State())

    private struct State {
        var entries: [String: (cover: [UInt8]?, used: UInt64)] = [:]
        var bytes = 0
        var clock: UInt64 = 0
    }

    public init(capacity: Int = 16 * 1024 * 1024) { self.capacity = capacity }

    /// `.some(nil)` for a remembered miss, `nil` for unknown.
    public func cover(for key: String) -> [UInt8]?? {
        state.withLock { state in
            guard let entry = state.entries[key] else { return nil }
            state.clock += 1
            state.entries[key] = (entry.cover, state.clock)
            return .some(entry.cover)
        }
    }

    public func remember(_ cover: [UInt8]?, for key: String) {
        let size = (cover?.count ?? 0) + key.utf8.count
        guard size <= capacity / 4 else { return }
        state.withLock { state in
            if let old = state.entries[key] { state.bytes -= (old.cover?.count ?? 0) + key.utf8.count }
            state.clock += 1
            state.entries[key] = (cover, state.clock)
            state.bytes += size
            while state.bytes > capacity, let oldest = state.entries.min(by: { $0.value.used < $1.value.used }) {
                state.entries[oldest.key] = nil
                state.bytes -= (oldest.value.cover?.count ?? 0) + oldest.key.utf8.count
            }
        }
    }

    public var count: Int { state.withLock { $0.entries.count } }
}
