import Foundation
import NimbusDecoder
import NimbusModel
import NimbusPCM
import NimbusSupport
import Synchronization

/// The background pass that decodes songs once and measures them (EBU R128 through
/// libebur128), album by album so an album's gain is its songs gated together. One thread at
/// background priority: it never competes with playback or answers, and it pauses on request.
/// Decoding goes through the same opening the player uses (`open`), so a share or a cloud
/// song is read as it plays — through the range cache.
public final class AnalysisPass: Sendable {
    /// One song to measure: `modified` ties the result to the file as it is.
    public struct Job: Sendable, Equatable {
        public var uri: String
        public var modified: Int64

        public init(uri: String, modified: Int64) {
            self.uri = uri
            self.modified = modified
        }
    }

    public enum State: String, Sendable { case idle, running, paused }

    /// What `analysisstatus` answers.
    public struct Status: Sendable, Equatable {
        public var state: State
        public var songs: Int
        public var measured: Int
        public var pending: Int
        public var failed: Int
        /// Songs per second over this run (0 before the first).
        public var rate: Double
    }

    private struct Queue {
        var albums: [[Job]] = []
        /// Work queued by `plan`, run before the next album.
        var plans: [@Sendable () -> Void] = []
        var paused = false
        /// Held while the box is busy (playing, updating), when the user asked for that.
        var busy = false
        /// Threads measuring an album now.
        var working = 0
        var failed = 0
        var measuredThisRun = 0
        /// Wall seconds the pass was measuring (all threads together), for `rate:`.
        var secondsThisRun = 0.0
        var busySince: UInt64?
        var stopped = false
        /// URIs that failed once: logged once, not tried again until the file changes.
        var failedURIs: [String: Int64] = [:]
    }

    public let store: AnalysisStore
    private let open: @Sendable (String) throws -> any AudioDecoder
    private let logger: Logger
    /// Called (on the pass's thread) after each song and when the queue empties: the daemon
    /// raises the `analysis` idle event from it.
    private let progress: @Sendable () -> Void
    private let queue = Mutex(Queue())
    private let wake = NSCondition()
    /// The library's song count, for `songs:`.
    private let librarySongs = Atomic<Int>(0)

    /// `threads`: one per spare core by default (all but one), at least one — the pass is
    /// at background priority, so playback and answers still come first.
    public init(
        store: AnalysisStore, logger: Logger, threads: Int = max(1, ProcessInfo.processInfo.activeProcessorCount - 1),
        open: @escaping @Sendable (String) throws -> any AudioDecoder, progress: @escaping @Sendable () -> Void = {}
    ) {
        self.store = store
        self.open = open
        self.logger = logger
        self.progress = progress
        for index in 0..<max(1, threads) {
            DaemonThread.start(name: index == 0 ? "analysis" : "analysis-\(index)", priority: .background) { [self] in run() }
        }
    }

    /// Wakes waiting threads; under the condition's lock, so a thread between looking at the
    /// queue and waiting cannot miss it.
    private func wakeAll() {
        wake.lock()
        wake.broadcast()
        wake.unlock()
    }

    /// Ends the thread after the song it is measuring; the store is saved.
    public func stop() {
        queue.withLock { $0.stopped = true }
        wakeAll()
    }

    public func setLibrarySongs(_ count: Int) { librarySongs.store(count, ordering: .relaxed) }

    /// Queues albums (each a list of songs measured together). `first`: before what waits
    /// (an explicit `analyze`). A song already waiting is not queued twice; a song that failed
    /// is tried again only when its file changed.
    public func submit(_ albums: [[Job]], first: Bool = false) {
        queue.withLock { queue in
            let waiting = Set(queue.albums.joined().map(\.uri))
            let fresh = albums.map { album in
                album.filter { job in !waiting.contains(job.uri) && queue.failedURIs[job.uri] != job.modified }
            }.filter { !$0.isEmpty }
            queue.albums = first ? fresh + queue.albums : queue.albums + fresh
        }
        wakeAll()
    }

    public func pause() { queue.withLock { $0.paused = true } }

    /// `loudness_analysis "idle"`: the pass waits while the box plays or updates, and goes on
    /// after the album it is measuring when the box is busy again.
    public func setBusy(_ busy: Bool) {
        queue.withLock { $0.busy = busy }
        if !busy { wakeAll() }
    }

    public func resume() {
        queue.withLock { $0.paused = false }
        wakeAll()
    }

    public var status: Status {
        let counted = store.count
        return queue.withLock { queue in
            let pending = queue.albums.reduce(0) { $0 + $1.count }
            let state: State = queue.paused || (queue.busy && pending > 0) ? .paused : (queue.working > 0 || pending > 0 ? .running : .idle)
            return Status(
                state: state, songs: max(librarySongs.load(ordering: .relaxed), counted), measured: counted, pending: pending,
                failed: queue.failed, rate: Self.rate(queue))
        }
    }

    private static func rate(_ queue: Queue) -> Double {
        let seconds = queue.secondsThisRun + (queue.busySince.map { Double(MonotonicClock.now() &- $0) / 1e9 } ?? 0)
        return seconds > 0 ? Double(queue.measuredThisRun) / seconds : 0
    }

    private enum Work {
        case plan(@Sendable () -> Void)
        case album([Job])
    }

    /// Runs `work` on the pass's thread before the next album, paused or not: working out what
    /// to measure walks the whole library, which the core loop must not wait for.
    public func plan(_ work: @escaping @Sendable () -> Void) {
        queue.withLock { $0.plans.append(work) }
        wakeAll()
    }

    private func nextWork() -> Work? {
        wake.lock()
        defer { wake.unlock() }
        while true {
            let next = queue.withLock { queue -> Work?? in
                if queue.stopped { return .some(nil) }
                if !queue.plans.isEmpty { return .plan(queue.plans.removeFirst()) }
                guard !queue.paused, !queue.busy, !queue.albums.isEmpty else { return nil }
                if queue.working == 0, queue.busySince == nil { queue.busySince = MonotonicClock.now() }
                queue.working += 1
                return .album(queue.albums.removeFirst())
            }
            if let next { return next }
            wake.wait()
        }
    }

    private func run() {
        var lastSave = MonotonicClock.now()
        while let work = nextWork() {
            guard case .album(let album) = work else {
                if case .plan(let plan) = work { plan() }
                continue
            }
            var meters: [(Job, LoudnessMeter)] = []
            for job in album {
                do {
                    meters.append((job, try measure(job.uri)))
                } catch {
                    logger.warning("cannot measure \"\(job.uri)\": \(error); skipped")
                    queue.withLock {
                        $0.failed += 1
                        $0.failedURIs[job.uri] = job.modified
                    }
                }
                if queue.withLock({ $0.stopped }) { break }
            }
            let albumLoudness = meters.count == album.count && album.count > 1 ? LoudnessMeter.album(of: meters.map(\.1)) : nil
            for (job, meter) in meters {
                store.set(job.uri, SongLoudness(modified: job.modified, track: meter.loudness, album: albumLoudness))
            }
            queue.withLock {
                $0.measuredThisRun += meters.count
                $0.working -= 1
                if $0.working == 0, let since = $0.busySince {
                    $0.secondsThisRun += Double(MonotonicClock.now() &- since) / 1e9
                    $0.busySince = nil
                }
            }
            if MonotonicClock.now() &- lastSave > 10_000_000_000 || queue.withLock({ $0.albums.isEmpty }) {
                saveStore()
                lastSave = MonotonicClock.now()
            }
            progress()
        }
        saveStore()
    }

    private func saveStore() {
        do {
            try store.save()
        } catch {
            logger.error("cannot save the loudness measurements: \(error)")
        }
    }

    /// Decodes the whole song into a meter.
    private func measure(_ uri: String) throws -> LoudnessMeter {
        let decoder = try open(uri)
        let format = decoder.format
        guard format.sample != .dsd else { throw AnalysisError("DSD is not measured") }
        let meter = try LoudnessMeter(sampleRate: format.sampleRate, channels: Int(format.channels))
        let frames = 8192
        var buffer = [UInt8](repeating: 0, count: frames * format.frameBytes)
        var floats: [Float] = []
        floats.reserveCapacity(frames * Int(format.channels))
        while true {
            let count = try buffer.withUnsafeMutableBytes { raw in try decoder.decode(into: raw) }
            if count == 0 { break }
            floats.removeAll(keepingCapacity: true)
            buffer.withUnsafeBytes { raw in FilterChain.toFloat(raw, format: format, frames: count, into: &floats) }
            floats.withUnsafeBufferPointer { meter.add($0) }
            if queue.withLock({ $0.stopped }) { throw AnalysisError("stopped") }
        }
        return meter
    }
}
