import Foundation
import Synchronization

/// Runs `body(index)` for every index on a few dedicated threads and waits for all of them.
/// Used for blocking work (tag scanning reads files) that must stay off the cooperative pool
/// and the core loop; Dispatch's concurrentPerform would share threads with Swift tasks.
public enum WorkerThreads {
    public static func run(count: Int, threads: Int, name: String, priority: ThreadPriority? = nil, _ body: @escaping @Sendable (Int) -> Void) {
        guard count > 0 else { return }
        let next = Atomic<Int>(0)
        let group = DispatchGroup()
        let workers = max(1, min(threads, count))
        for worker in 0..<workers {
            group.enter()
            DaemonThread.start(name: "\(name)-\(worker)", priority: priority) {
                while true {
                    let index = next.add(1, ordering: .relaxed).oldValue
                    if index >= count { break }
                    body(index)
                }
                group.leave()
            }
        }
        group.wait()
    }

    /// The number of online CPUs.
    public static var processorCount: Int { ProcessInfo.processInfo.activeProcessorCount }
}
