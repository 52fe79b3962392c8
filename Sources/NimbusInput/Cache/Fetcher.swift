import Foundation
import NimbusSupport
import Synchronization

/// The threads that run fetches, highest priority first (playing, seek, prefetch, indexing,
/// pinning; oldest first within one). Two threads only ever take playing, seek and prefetch
/// work, so a library scan never delays the song being heard.
final class Fetcher: @unchecked Sendable {
    // Invariant: `waiting` and `started` are only touched with `condition` locked.
    private let condition = NSCondition()
    private var waiting: [FetchJob] = []
    private let sequence = Atomic<UInt64>(0)

    private let reserved: Int
    private let general: Int
    /// The threads start with the first fetch: a cache that never fetches (a box without cloud
    /// accounts, a test's) has none.
    private var started = false

    func nextSequence() -> UInt64 { sequence.wrappingAdd(1, ordering: .relaxed).newValue }

    /// One per range cache (the daemon has one): the network is shared, so are the threads.
    init(reserved: Int = 2, general: Int = 6) {
        self.reserved = reserved
        self.general = general
    }

    func submit(_ job: FetchJob) {
        condition.withLock {
            if !started {
                started = true
                for index in 0..<(reserved + general) {
                    let limit: FetchPurpose = index < reserved ? .prefetch : .pinning
                    DaemonThread.start(name: "fetch-\(index)") { [self] in loop(limit: limit) }
                }
            }
            waiting.append(job)
            condition.broadcast()
        }
    }

    private func loop(limit: FetchPurpose) {
        while true {
            let job = condition.withLock { () -> FetchJob in
                while true {
                    let eligible = waiting.indices.filter { waiting[$0].purpose <= limit }
                    if let best = eligible.min(by: { (waiting[$0].purpose, waiting[$0].sequence) < (waiting[$1].purpose, waiting[$1].sequence) }) {
                        return waiting.remove(at: best)
                    }
                    condition.wait()
                }
            }
            job.entry.run(job)
        }
    }
}
