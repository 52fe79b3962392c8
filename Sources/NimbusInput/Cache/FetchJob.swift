import Foundation
import Glibc
import NimbusSupport
import Synchronization

/// A fetch of one range of one entry, run by a fetcher thread. Readers wait on the entry
/// for the bytes they need and are woken as each chunk lands, not when the whole range did.
final class FetchJob: @unchecked Sendable {
    // Invariant: `position`, `finished`, `error` and `requestedAt` are only touched with the entry's
    // condition locked; `cancelled` is atomic.
    let entry: CacheEntry
    let range: Range<Int64>
    let purpose: FetchPurpose
    let sequence: UInt64
    var position: Int64
    var finished = false
    var error: InputError?
    /// Set (with the condition locked) when the file changed under the job: what it still
    /// writes is the old version and must never count as cached.
    var stale = false
    /// When its current request went out (monotonic nanoseconds; 0: not yet): bytes arriving
    /// for it prove the file's version as of then.
    var requestedAt: UInt64 = 0
    let cancelled = Atomic<Bool>(false)

    init(entry: CacheEntry, range: Range<Int64>, purpose: FetchPurpose, sequence: UInt64) {
        self.entry = entry
        self.range = range
        self.purpose = purpose
        self.sequence = sequence
        self.position = range.lowerBound
    }

    func cancel() { cancelled.store(true, ordering: .relaxed) }
    var isCancelled: Bool { cancelled.load(ordering: .relaxed) }
}
