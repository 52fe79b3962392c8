import Foundation

/// Threads for the blocking part of a command — reading a cover or a picture from a cloud
/// account — so the core loop never waits on the network for one client while every other
/// client waits on the core loop. Threads start on demand, up to `limit`, and stay.
/// Also what the Subsonic API's requests, streams and transcodes run on: Dispatch's pool on
/// Linux only grows past its width when its monitor sees a worker blocked (every 100 ms or
/// so), so a job queued behind a blocked one — a transcode waiting on a slow phone — started
/// 170–210 ms late; threads of our own start it at once.
public final class BlockingWork: @unchecked Sendable {
    // Invariant: `jobs`, `started` and `idle` are only touched with `condition` locked.
    private let condition = NSCondition()
    private var jobs: [@Sendable () -> Void] = []
    private var started = 0
    private var idle = 0
    public let limit: Int
    public let name: String
    public let priority: ThreadPriority?

    /// Threads `NAME-1` … `NAME-LIMIT`, each at `priority` (nil: the starting thread's own).
    public init(name: String, limit: Int, priority: ThreadPriority? = nil) {
        self.limit = limit
        self.name = name
        self.priority = priority
    }

    public func submit(_ job: @escaping @Sendable () -> Void) {
        condition.withLock {
            jobs.append(job)
            if idle == 0 && started < limit {
                started += 1
                DaemonThread.start(name: "\(name)-\(started)", priority: priority) { [self] in loop() }
            } else {
                condition.signal()
            }
        }
    }

    private func loop() {
        while true {
            let job = condition.withLock {
                while jobs.isEmpty {
                    idle += 1
                    condition.wait()
                    idle -= 1
                }
                return jobs.removeFirst()
            }
            job()
        }
    }
}
