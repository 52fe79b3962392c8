import Foundation
import Glibc
import NimbusSupport
import Synchronization

/// One version of one remote file on disk: a sparse data file the size of the file and the
/// journal of the ranges in it that are real. Shared by every reader of that file (two
/// partitions, a decoder and the tag scanner): a byte is fetched once, by one job, and
/// everybody waiting for it is woken when it lands.
public final class CacheEntry: @unchecked Sendable {
    // Invariant: every `var` below `condition` is only touched with it locked (they are not
    // private only so that CacheEntry+Confirmation.swift can keep that rule), except
    // `leases`, which belongs to the cache and is only touched under its lock;
    // `dataFD` is fixed after init and pread/pwrite on it need no lock.
    public let key: CacheKey
    public let length: Int64
    let dataFD: Int32
    private weak var cache: RangeCache?
    /// The cache's fetch threads (kept here: the cache itself is held weakly).
    private let fetcher: Fetcher
    private let counters: CacheCounters
    let condition = NSCondition()
    private var source: any RemoteSource
    /// Bytes written to the data file (readable now).
    var available: RangeSet
    /// Bytes also synced and journaled (what survives a crash).
    private var durable: RangeSet
    private var journal: CacheJournal
    var jobs: [FetchJob] = []
    var waiters = 0
    /// When bytes of this file last arrived from the server, its version thereby current
    /// (monotonic nanoseconds; 0: not in this run).
    var confirmedAt: UInt64 = 0
    /// The server answered with another version: nothing here may be played any more.
    var changedOnServer = false
    /// When a fetch last found the server out of reach (monotonic nanoseconds; 0: not in
    /// this run): a confirmation then gives way to playing what is cached, as offline.
    var unreachableAt: UInt64 = 0
    var leases = 0
    /// Seconds since 1970 of the last read (atomic: readers and the cache touch it).
    private let accessed = Atomic<Int64>(Int64(Date().timeIntervalSince1970))

    var lastAccess: Date { Date(timeIntervalSince1970: Double(accessed.load(ordering: .relaxed))) }
    func touch() { accessed.store(Int64(Date().timeIntervalSince1970), ordering: .relaxed) }

    static let blockSize: Int64 = 64 << 10
    /// Written bytes are synced and journaled at least every this many bytes.
    static let journalInterval: Int64 = 1 << 20

    init(key: CacheKey, length: Int64, source: any RemoteSource, directory: String, cache: RangeCache) throws(InputError) {
        self.key = key
        self.length = length
        self.source = source
        self.cache = cache
        self.counters = cache.counters
        fetcher = cache.fetcher
        let base = directory + "/" + key.fileName
        let fd = open(base + ".data", O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw InputError("Failed to open cache file \"\(base).data\": \(String(cString: strerror(errno)))") }
        var info = stat()
        fstat(fd, &info)
        journal = CacheJournal(path: base + ".journal")
        var recorded = journal.open()
        if Int64(info.st_size) != length {
            // A new entry, or a data file that does not match: start from nothing.
            ftruncate(fd, 0)
            ftruncate(fd, off_t(length))
            recorded = RangeSet()
            journal.compact(recorded)
        }
        dataFD = fd
        // Ranges past the end (a journal from another length) are never trusted.
        durable = RangeSet(recorded.ranges.compactMap { $0.upperBound <= length ? $0 : nil })
        available = durable
    }

    deinit {
        journal.close()
        close(dataFD)
    }

    /// Bytes on disk (for eviction).
    var storedBytes: Int64 { condition.withLock { available.byteCount } }
    /// Called under the cache's lock (which guards `leases`).
    var isBusy: Bool { leases > 0 || condition.withLock { jobs.contains { !$0.finished } } }
    public var isComplete: Bool { condition.withLock { available.contains(0..<length) } }

    /// A newer source for the same version (a fresh download link, a refreshed token).
    func update(source: any RemoteSource) { condition.withLock { self.source = source } }

    // MARK: reading

    /// Reads at `offset`, waiting for (and if needed starting) the fetch of missing bytes.
    /// `reader` says how much to fetch and whether to read ahead (a sequential player is).
    func read(at offset: Int64, into buffer: UnsafeMutableRawBufferPointer, reader: ReaderState) throws(InputError) -> Int {
        guard buffer.count > 0 else { return 0 }
        let interrupt = ReadInterrupt.current
        condition.lock()
        var waitingOn: FetchJob?
        while true {
            if offset >= length {
                condition.unlock()
                return 0
            }
            if let run = available.run(containing: offset) {
                let count = Int(min(Int64(buffer.count), run.upperBound - offset))
                touch()
                let ahead = reader.readAhead(from: run.upperBound, offset: offset, length: length)
                var started: FetchJob?
                if let ahead, !jobs.contains(where: { !$0.finished && $0.range.lowerBound <= ahead.lowerBound && $0.range.upperBound > ahead.lowerBound }) {
                    started = startJob(planned(from: ahead.lowerBound, size: Int64(ahead.count)), purpose: reader.purpose)
                }
                condition.unlock()
                if let started { reader.started(started) }
                let got = pread(dataFD, buffer.baseAddress, count, off_t(offset))
                guard got >= 0 else { throw InputError("Failed to read the cache for \(key): \(String(cString: strerror(errno)))") }
                if got == 0 {
                    // The file changed on the server meanwhile and the data file was emptied
                    // under this read: look again (a fetch then reports the change) rather
                    // than answer "end of file" in the middle.
                    condition.lock()
                    continue
                }
                counters.served(got)
                return got
            }
            if let job = waitingOn, job.finished, job.position <= offset, let error = job.error {
                condition.unlock()
                throw error
            }
            if let job = jobs.first(where: { !$0.finished && $0.range.contains(offset) && $0.position <= offset }) {
                if let interrupt, interrupt.isPending {
                    condition.unlock()
                    throw .interrupted
                }
                waitingOn = job
                waiters += 1
                interrupt?.whileWaiting { [condition] in condition.withLock { condition.broadcast() } }
                condition.wait()
                interrupt?.whileWaiting(wake: nil)
                waiters -= 1
                continue
            }
            let range = planned(from: offset, size: reader.fetchSize(for: offset), alignment: reader.alignment)
            let job = startJob(range, purpose: reader.purpose(for: offset))
            reader.started(job)
            waitingOn = job
        }
    }

    /// From the block boundary at or before `offset`, `size` bytes, stopping at bytes already
    /// here or already being fetched. A tag scanner's jumps align to its small probes instead:
    /// the 128 bytes of an ID3v1 tag should not cost the 64 KiB block around them.
    func planned(from offset: Int64, size: Int64, alignment: Int64 = blockSize) -> Range<Int64> {
        var start = offset / alignment * alignment
        if let run = available.run(containing: start), run.upperBound <= offset { start = run.upperBound }
        if let run = available.run(containing: start) { start = min(run.upperBound, offset) }
        var end = min(length, max(offset + 1, start + size))
        // Never leave a sliver before the end of the file for another round trip.
        if length - end < size { end = length }
        if let next = available.nextCovered(after: start), next < end, next > offset { end = next }
        for job in jobs where !job.finished && job.range.lowerBound > offset && job.range.lowerBound < end {
            end = job.range.lowerBound
        }
        return start..<max(end, offset + 1)
    }

    func startJob(_ range: Range<Int64>, purpose: FetchPurpose) -> FetchJob {
        let job = FetchJob(entry: self, range: range, purpose: purpose, sequence: fetcher.nextSequence())
        jobs.append(job)
        fetcher.submit(job)
        return job
    }

    /// Fetches `ranges` without a reader waiting (prefetch of the next song, pinning).
    func prefetch(_ ranges: [Range<Int64>], purpose: FetchPurpose) {
        condition.withLock {
            for wanted in ranges {
                for gap in available.gaps(in: wanted.clamped(to: 0..<length)) {
                    if jobs.contains(where: { !$0.finished && !$0.isCancelled && $0.range.contains(gap.lowerBound) }) { continue }
                    _ = startJob(gap, purpose: purpose)
                }
            }
        }
    }

    /// Fetches every missing byte at the pinning priority and waits for them on the calling
    /// thread (an offline download's), reporting the bytes on disk as they grow: it wakes when
    /// bytes arrive, a fetch ends, or `stop` is interrupted (pause, unpin, sign-out). Returns
    /// when the file is complete or stopped (its own jobs are then cancelled, the bytes so far
    /// kept); throws the first error of its fetches.
    func download(progress: (Int64) -> Void, stop: ReadInterrupt) throws(InputError) {
        var mine: [FetchJob] = []
        stop.whileWaiting { [condition] in condition.withLock { condition.broadcast() } }
        defer { stop.whileWaiting(wake: nil) }
        condition.lock()
        waiters += 1
        var reported: Int64 = -1
        while true {
            let have = available.byteCount
            let complete = available.contains(0..<length)
            let failed = mine.first { $0.finished && $0.error != nil }?.error
            if complete || failed != nil || stop.isPending {
                for job in mine where !job.finished { job.cancel() }
                waiters -= 1
                condition.unlock()
                progress(have)
                if let failed, !complete { throw failed }
                return
            }
            if have != reported {
                reported = have
                condition.unlock()
                progress(have)
                condition.lock()
                continue
            }
            if mine.allSatisfy(\.finished) {
                mine = []
                for gap in available.gaps(in: 0..<length)
                where !jobs.contains(where: { !$0.finished && $0.range.contains(gap.lowerBound) }) {
                    mine.append(startJob(gap, purpose: .pinning))
                }
            }
            condition.wait()
        }
    }

    /// Forgets every byte (an offline download dropped when its account signed out).
    func discard() { invalidate() }

    // MARK: fetching (fetcher threads)

    /// Runs a job: streams its range into the data file, resuming after dropped connections
    /// until the purpose's deadline, and journals what arrived.
    func run(_ job: FetchJob) {
        let source = condition.withLock { self.source }
        var position = condition.withLock { job.position }
        var journalStart = position
        var delay = 0.25
        let deadline = Date().addingTimeInterval(job.purpose <= .seek ? 60 : 30)
        // A server that cannot be reached at all gets ten seconds, not a minute: then the song
        // fails with the account's error in `status` and the player moves on, as MPD's would.
        let unreachableDeadline = Date().addingTimeInterval(10)
        var progressed = false
        var failure: InputError?
        /// How the fetch ended, for the log: requests made and why it stopped trying.
        var requests = 0
        var givenUp = ""
        let started = Date()
        /// errno of a failed write to the data file (the disk is full): the fetch stops at once.
        var writeError: Int32 = 0
        while position < job.range.upperBound, !job.isCancelled {
            counters.request()
            requests += 1
            let requested = MonotonicClock.now()
            condition.withLock { job.requestedAt = requested }
            var remote: RemoteError?
            let before = position
            do throws(RemoteError) {
                try source.fetch(position..<job.range.upperBound, purpose: job.purpose) { chunk in
                    guard !job.isCancelled else { return false }
                    let count = Int(min(Int64(chunk.count), job.range.upperBound - position))
                    guard count > 0 else { return false }
                    writeError = Self.writeAll(dataFD, chunk.baseAddress, count, at: position)
                    guard writeError == 0 else { return false }
                    counters.received(count, key: key, purpose: job.purpose)
                    position += Int64(count)
                    arrived(job, upTo: position, from: position - Int64(count))
                    if position - journalStart >= Self.journalInterval {
                        makeDurable(journalStart..<position, of: job)
                        journalStart = position
                    }
                    return position < job.range.upperBound
                }
            } catch {
                remote = error
                if error.unreachable { condition.withLock { unreachableAt = MonotonicClock.now(); condition.broadcast() } }
            }
            if position > before {
                delay = 0.25
                progressed = true
            }
            if writeError != 0 {
                failure = InputError("cannot write to the cache: \(String(cString: strerror(writeError)))")
                break
            }
            if let remote {
                if remote.kind == .changed {
                    invalidate(changed: true)
                    failure = InputError("\(key.account): the file changed on the server")
                    break
                }
                let outOfReach = remote.unreachable && !progressed
                guard remote.kind == .transient, Date() < (outOfReach ? unreachableDeadline : deadline) else {
                    // Named once: a provider's message may name the account itself.
                    failure = InputError(remote.message.hasPrefix(key.account + ": ") ? remote.message : "\(key.account): \(remote.message)")
                    givenUp = remote.kind != .transient ? "not to be retried"
                        : outOfReach ? "past the 10 s deadline for a server out of reach" : "past the \(job.purpose <= .seek ? 60 : 30) s deadline"
                    break
                }
            } else if position < job.range.upperBound, !job.isCancelled, Date() >= deadline {
                failure = InputError("\(key.account): the server ended the transfer early")
                givenUp = "past the \(job.purpose <= .seek ? 60 : 30) s deadline"
                break
            }
            if position < job.range.upperBound, !job.isCancelled {
                // A server's Retry-After is waited out (within the purpose's deadline).
                Thread.sleep(forTimeInterval: max(delay, Double(min(remote?.retryAfter ?? 0, 10))))
                delay = min(delay * 2, 4)
            }
        }
        if position > journalStart { makeDurable(journalStart..<position, of: job) }
        if let failure {
            let how = givenUp.isEmpty ? "" : String(format: " after %d request%@ in %.1f s, %@", requests, requests == 1 ? "" : "s", Date().timeIntervalSince(started), givenUp)
            cache?.fetchFailed(failure, purpose: job.purpose, how: how)
        }
        condition.withLock {
            job.finished = true
            job.error = failure
            jobs.removeAll { $0 === job }
            condition.broadcast()
        }
        cache?.noteStored()
    }

    /// A job that was running when the file changed may still write a chunk of the old
    /// version: it is never counted as here, so it is never served.
    private func arrived(_ job: FetchJob, upTo position: Int64, from start: Int64) {
        condition.withLock {
            guard !job.stale else { return }
            available.insert(start..<position)
            confirmedAt = max(confirmedAt, job.requestedAt)
            job.position = position
            if waiters > 0 { condition.broadcast() }
        }
    }

    /// Syncs the data written so far and only then records the range in the journal.
    private func makeDurable(_ range: Range<Int64>, of job: FetchJob) {
        guard fdatasync(dataFD) == 0 else { return }
        condition.withLock {
            guard !job.stale else { return }
            guard journal.append(range) else { return }
            durable.insert(range)
            if journal.records > 512 { journal.compact(durable) }
        }
    }

    /// The remote file changed (or its bytes must go): nothing here may be served any more.
    private func invalidate(changed: Bool = false) {
        condition.withLock {
            if changed { changedOnServer = true }
            for job in jobs {
                job.cancel()
                job.stale = true
            }
            available = RangeSet()
            durable = RangeSet()
            journal.compact(durable)
            ftruncate(dataFD, 0)
            ftruncate(dataFD, off_t(length))
            condition.broadcast()
        }
    }

}
