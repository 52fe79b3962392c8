import Foundation
import NimbusSupport
import Synchronization

/// The threads that run fetches, highest priority first (playing, seek, prefetch, indexing,
/// pinning; oldest first within one). Two threads only ever take playing, seek and prefetch
/// work, so a library scan never delays the song being heard.
final class Fetcher: @unchecked Sendable {
    // Invariant: `waiting` is only touched with `condition` locked.
    private let condition = NSCondition()
    private var waiting: [FetchJob] = []
    private let sequence = Atomic<UInt64>(0)

    /// One pool for the process: the network is shared, so are the threads.
    static let shared = Fetcher()

    func nextSequence() -> UInt64 { sequence.wrappingAdd(1, ordering: .relaxed).newValue }

    init(reserved: Int = 2, general: Int = 6) {
        for index in 0..<(reserved + general) {
            let limit: FetchPurpose = index < reserved ? .prefetch : .pinning
            DaemonThread.start(name: "fetch-\(index)") { [self] in loop(limit: limit) }
        }
    }

    func submit(_ job: FetchJob) {
        condition.withLock {
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
