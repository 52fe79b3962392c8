/// How one reader (a decoder or a tag scanner) moves through a file: whether it reads
/// sequentially, how big its fetches should be, when to read ahead, and which of its fetches
/// a jump elsewhere made useless.
final class ReaderState {
    let purpose: FetchPurpose
    private var sequentialEnd: Int64 = -1
    private var runLength: Int64 = 0
    private var lastJob: FetchJob?

    static let largestFetch: Int64 = 2 << 20

    /// A jump's first fetch: 64 KiB for a player (a few seconds of audio in one round trip),
    /// 16 KiB for a tag scanner (tags, stream headers and ID3v1 fit; more follows as it reads).
    var probeSize: Int64 { purpose == .indexing ? 16 << 10 : 64 << 10 }
    /// Where its fetches may start: block boundaries, or a probe's for a tag scanner.
    var alignment: Int64 { min(probeSize, CacheEntry.blockSize) }

    init(purpose: FetchPurpose) {
        self.purpose = purpose
    }

    func note(read offset: Int64, count: Int) {
        runLength = offset == sequentialEnd ? runLength + Int64(count) : 0
        sequentialEnd = offset + Int64(count)
    }

    private func isSequential(_ offset: Int64) -> Bool { offset == sequentialEnd }

    /// Small probes for jumps (tags, seeks by bisection); fetches that double up to 2 MiB
    /// while the reader keeps reading on.
    func fetchSize(for offset: Int64) -> Int64 {
        guard isSequential(offset), runLength > 0 else { return probeSize }
        var size = probeSize * 4
        while size < runLength && size < Self.largestFetch { size *= 2 }
        return size
    }

    /// A player that jumps is seeking, which outranks reading ahead.
    func purpose(for offset: Int64) -> FetchPurpose {
        purpose == .playing && sequentialEnd >= 0 && !isSequential(offset) ? .seek : purpose
    }

    /// For a sequential player: the range to fetch next when less than about two fetches'
    /// worth is left ahead of it. Only once it has read a probe's worth in a row: a decoder
    /// opening a file reads its headers sequentially and then jumps (to the end for the
    /// length, into the middle for a seek), and a read-ahead started by those few kilobytes
    /// fetched a quarter of an Ogg file that a seek to 7:30 never used.
    func readAhead(from runEnd: Int64, offset: Int64, length: Int64) -> Range<Int64>? {
        guard purpose <= .prefetch, isSequential(offset), runLength >= probeSize, runEnd < length else { return nil }
        let size = fetchSize(for: offset)
        guard runEnd - offset < max(512 << 10, size * 2) else { return nil }
        return runEnd..<min(length, runEnd + size)
    }

    /// A new fetch that does not continue the previous one makes the previous one useless —
    /// unless that one is a single probe: its bytes are already on their way, and cutting it
    /// short would leave a hole in a file's head that a player reads later (a FLAC's tag scan
    /// that needs only its first 150 bytes closed its stream and cut the 16 KiB head probe
    /// after 512 bytes; the song's first audio then waited for the network).
    func started(_ job: FetchJob) {
        if let last = lastJob, last !== job, !(last.range.lowerBound...last.range.upperBound).contains(job.range.lowerBound) {
            cancelUnlessProbe(last)
        }
        lastJob = job
    }

    /// The reader is done: what it asked for ahead is no longer needed (a probe still lands).
    func close() {
        if let lastJob { cancelUnlessProbe(lastJob) }
    }

    private func cancelUnlessProbe(_ job: FetchJob) {
        if job.range.count > probeSize { job.cancel() }
    }
}
