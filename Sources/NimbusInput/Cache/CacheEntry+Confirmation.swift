import Foundation
import NimbusSupport

/// Confirming that a cached version is still the server's before a player takes it.
///
/// Why it waits as long as it does: a player that went ahead on cached bytes while the
/// server was merely slow or failing (5xx, dropped or stalled transfers) heard the old
/// version's head and then, once a later answer showed the change, the new version from its
/// start — a splice of two files. Only a server that cannot be reached at all (offline, the
/// pinned-music case) lets the cached bytes play unconfirmed; a server that answers but not
/// in time fails the song cleanly instead.
extension CacheEntry {
    /// Before a player takes cached bytes of a file that is not whole here and whose version
    /// was last confirmed more than `window` nanoseconds ago, the first missing block is asked
    /// for now and its answer awaited: a file replaced on the server is noticed before a byte
    /// of its old version is heard. Returns when a request sent since proved the version
    /// (or the file is whole here: nothing to splice), when the server is out of reach or
    /// refused the request for good (the cached bytes play, as offline); throws when the
    /// file changed, or when `limit` seconds pass with the server answering only faults.
    func confirm(window: UInt64, limit: Double) throws(InputError) {
        let interrupt = ReadInterrupt.current
        condition.lock()
        defer { condition.unlock() }
        let asked = MonotonicClock.now()
        guard confirmedAt == 0 || asked - confirmedAt >= window || changedOnServer else { return }
        let deadline = Date().addingTimeInterval(limit)
        waiters += 1
        defer { waiters -= 1 }
        var asking: FetchJob?
        while true {
            if changedOnServer { throw InputError("\(key.account): the file changed on the server") }
            // Proved by a request sent since we asked; a fetch already under way when we
            // asked proves nothing newer.
            if confirmedAt >= asked || available.contains(0..<length) { return }
            if unreachableAt >= asked { return }
            if let job = asking, job.finished {
                if job.error != nil { return }
                asking = nil
            }
            if asking == nil, !jobs.contains(where: { !$0.finished && $0.requestedAt >= asked }), let offset = firstUnfetchedOffset() {
                asking = startJob(planned(from: offset, size: Self.blockSize), purpose: .playing)
            }
            if let interrupt, interrupt.isPending { throw .interrupted }
            interrupt?.whileWaiting { [condition] in condition.withLock { condition.broadcast() } }
            let woken = condition.wait(until: deadline)
            interrupt?.whileWaiting(wake: nil)
            if !woken, Date() >= deadline {
                throw InputError("\(key.account): the server did not confirm in time that the cached copy is current")
            }
        }
    }

    /// The first missing byte no running fetch is bringing.
    private func firstUnfetchedOffset() -> Int64? {
        let running = jobs.filter { !$0.finished }.map { $0.position..<$0.range.upperBound }
        for gap in available.gaps(in: 0..<length) {
            var offset = gap.lowerBound
            while offset < gap.upperBound {
                guard let covering = running.first(where: { $0.contains(offset) }) else { return offset }
                offset = covering.upperBound
            }
        }
        return nil
    }

    func markConfirmed() { condition.withLock { confirmedAt = MonotonicClock.now() } }
}
