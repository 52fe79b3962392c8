import Foundation
import NimbusInput
import NimbusSupport
import Synchronization
import NimbusHarness
import XCTest

/// The range cache with an in-memory remote that counts what it sends and can misbehave.
final class RangeCacheTests: XCTestCase {
    final class FakeRemote: RemoteSource, @unchecked Sendable {
        // Invariant: mutable state only through `state`.
        let bytes: [UInt8]
        let state = Mutex<(sent: Int64, requests: Int, dropAfter: Int?, failuresLeft: Int, changed: Bool)>((0, 0, nil, 0, false))
        /// Bytes per delivery, and a pause before each (a slow line).
        var chunkSize = 16384
        var pause: useconds_t = 0
        /// Whether the failures say the server is out of reach (else it answered with a fault).
        var failuresUnreachable = false

        init(size: Int) {
            // A cheap xorshift stream: distinct bytes everywhere, so misplaced ranges show.
            var state: UInt64 = 0x9E37_79B9_7F4A_7C15 ^ UInt64(size)
            bytes = (0..<size).map { _ in
                state ^= state << 13
                state ^= state >> 7
                state ^= state << 17
                return UInt8(truncatingIfNeeded: state)
            }
        }

        var sent: Int64 { state.withLock { $0.sent } }

        func fetch(_ range: Range<Int64>, purpose: FetchPurpose, into sink: (UnsafeRawBufferPointer) -> Bool) throws(RemoteError) {
            let (dropAfter, fail, changed) = state.withLock { state -> (Int?, Bool, Bool) in
                state.requests += 1
                let fail = state.failuresLeft > 0
                if fail { state.failuresLeft -= 1 }
                let drop = state.dropAfter
                state.dropAfter = nil
                return (drop, fail, state.changed)
            }
            // Faults first: a change may show only on the answer after them.
            if fail { throw RemoteError(.transient, "connection refused", unreachable: failuresUnreachable) }
            if changed { throw RemoteError(.changed, "changed") }
            var position = Int(range.lowerBound)
            let end = Int(range.upperBound)
            while position < end {
                if pause > 0 { usleep(pause) }
                var chunk = min(chunkSize, end - position)
                if let dropAfter, position - Int(range.lowerBound) + chunk > dropAfter {
                    chunk = dropAfter - (position - Int(range.lowerBound))
                    state.withLock { $0.sent += Int64(max(0, chunk)) }
                    if chunk > 0 { _ = bytes[position..<(position + chunk)].withUnsafeBytes { sink($0) } }
                    return
                }
                // Counted before the sink sees them: a reader woken by this chunk may look at
                // `sent` before this thread runs again.
                state.withLock { $0.sent += Int64(chunk) }
                let proceed = bytes[position..<(position + chunk)].withUnsafeBytes { sink($0) }
                position += chunk
                if !proceed { return }
            }
        }
    }

    private func readAll(_ stream: any NimbusInput.InputStream) throws -> [UInt8] {
        try stream.seek(to: 0)
        return try stream.readToEnd()
    }

    /// A tag scanner that needs only a file's first bytes and closes at once leaves its head
    /// probe to land whole: a player reads the rest of that head later (a FLAC's padding)
    /// and must not wait for the network over a hole the closing cut.
    func testAClosedScannersHeadProbeLandsWhole() throws {
        let directory = TemporaryDirectory("nimbus-cache")
        let remote = FakeRemote(size: 200_000)
        remote.chunkSize = 512
        remote.pause = 2000
        let cache = RangeCache(directory: directory.path, budget: 1 << 30, logger: .silent)
        let key = CacheKey(account: "a", fileID: "f", version: "1")
        do {
            let scanner = try cache.open(key: key, length: 200_000, source: remote, purpose: .indexing, uri: "a/f")
            XCTAssertEqual(try scanner.read(count: 150), Array(remote.bytes[0..<150]))
        }
        XCTAssertTrue(waitUntil(timeout: 10) { remote.sent >= 16384 }, "the probe went on after the scanner closed")
        let requests = remote.state.withLock { $0.requests }
        let player = try cache.open(key: key, length: 200_000, source: remote, purpose: .playing, uri: "a/f")
        XCTAssertEqual(try player.read(count: 16384), Array(remote.bytes[0..<16384]))
        XCTAssertEqual(remote.state.withLock { $0.requests }, requests, "the head was all there")
    }

    /// A player about to take cached bytes of an incomplete file asks the server first when
    /// it has not heard from it within the window: a change is caught before a byte plays.
    func testCachedBytesAreConfirmedBeforePlayingOnceTheWindowHasPassed() throws {
        let directory = TemporaryDirectory("nimbus-cache")
        let remote = FakeRemote(size: 1_000_000)
        let key = CacheKey(account: "a", fileID: "f", version: "1")
        // A cache whose window has passed at once: the head read in the first run counts as old.
        let strict = RangeCache(directory: directory.path, budget: 1 << 30, revalidateAfter: .zero, logger: .silent)
        let first = try strict.open(key: key, length: 1_000_000, source: remote, purpose: .indexing, uri: "a/f")
        XCTAssertEqual(try first.read(count: 1000), Array(remote.bytes[0..<1000]))
        let requests = remote.state.withLock { $0.requests }
        try first.confirmFreshness()
        XCTAssertEqual(remote.state.withLock { $0.requests }, requests + 1, "one request confirms")
        remote.state.withLock { $0.changed = true }
        let player = try strict.open(key: key, length: 1_000_000, source: remote, purpose: .playing, uri: "a/f")
        XCTAssertThrowsError(try player.confirmFreshness()) { XCTAssertTrue("\($0)".contains("changed"), "\($0)") }
        XCTAssertThrowsError(try player.read(count: 10), "nothing of the old version is served")

        // Within the window nothing is asked: the cached head plays at once.
        let other = TemporaryDirectory("nimbus-cache")
        let fresh = FakeRemote(size: 1_000_000)
        let lenient = RangeCache(directory: other.path, budget: 1 << 30, revalidateAfter: .seconds(60), logger: .silent)
        let scanner = try lenient.open(key: key, length: 1_000_000, source: fresh, purpose: .indexing, uri: "a/f")
        _ = try scanner.read(count: 1000)
        let before = fresh.state.withLock { $0.requests }
        fresh.state.withLock { $0.changed = true }
        try lenient.open(key: key, length: 1_000_000, source: fresh, purpose: .playing, uri: "a/f").confirmFreshness()
        XCTAssertEqual(fresh.state.withLock { $0.requests }, before)
    }

    /// A server that answers with faults for longer than a player used to wait (2 s) and
    /// then shows the change: the cached head never plays; one out of reach lets it play.
    func testAConfirmationOutlastsFaultsAndGivesWayOnlyToAnUnreachableServer() throws {
        let directory = TemporaryDirectory("nimbus-cache")
        let remote = FakeRemote(size: 1_000_000)
        let key = CacheKey(account: "a", fileID: "f", version: "1")
        let strict = RangeCache(directory: directory.path, budget: 1 << 30, revalidateAfter: .zero, logger: .silent)
        _ = try strict.open(key: key, length: 1_000_000, source: remote, purpose: .indexing, uri: "a/f").read(count: 1000)
        // Backing off 0.25, 0.5, 1 and 2 s: the change shows after 3.75 s of faults.
        remote.state.withLock {
            $0.failuresLeft = 4
            $0.changed = true
        }
        let player = try strict.open(key: key, length: 1_000_000, source: remote, purpose: .playing, uri: "a/f")
        XCTAssertThrowsError(try player.confirmFreshness()) { XCTAssertTrue("\($0)".contains("changed"), "\($0)") }
        XCTAssertEqual(remote.state.withLock { $0.failuresLeft }, 0, "every fault was waited out")
        XCTAssertThrowsError(try player.read(count: 10), "nothing of the old version is served")

        let other = TemporaryDirectory("nimbus-cache")
        let away = FakeRemote(size: 1_000_000)
        let offline = RangeCache(directory: other.path, budget: 1 << 30, revalidateAfter: .zero, logger: .silent)
        _ = try offline.open(key: key, length: 1_000_000, source: away, purpose: .indexing, uri: "a/f").read(count: 1000)
        away.failuresUnreachable = true
        away.state.withLock { $0.failuresLeft = 1_000 }
        let pinned = try offline.open(key: key, length: 1_000_000, source: away, purpose: .playing, uri: "a/f")
        try pinned.confirmFreshness()
        XCTAssertLessThanOrEqual(1_000 - away.state.withLock { $0.failuresLeft }, 1, "an unreachable server is asked once, not waited for")
        XCTAssertEqual(try pinned.read(count: 1000), Array(away.bytes[0..<1000]), "the cached head plays, as offline")
    }

    func testASecondReadCostsNoNetworkAndSurvivesReopening() throws {
        let directory = TemporaryDirectory("nimbus-cache")
        let remote = FakeRemote(size: 3_000_000)
        let key = CacheKey(account: "test", fileID: "song", version: "1")
        var cache: RangeCache? = RangeCache(directory: directory.path, budget: 1 << 30, logger: .silent)
        var stream: CachedInputStream? = try cache!.open(key: key, length: 3_000_000, source: remote, purpose: .playing, uri: "song")
        XCTAssertEqual(try readAll(stream!), remote.bytes)
        let sent = remote.sent
        XCTAssertGreaterThanOrEqual(sent, 3_000_000)
        XCTAssertLessThan(sent, 3_300_000, "nothing fetched twice")
        XCTAssertEqual(try readAll(stream!), remote.bytes)
        XCTAssertEqual(remote.sent, sent, "a replay is served from disk")
        stream = nil
        cache = nil
        // A new cache over the same directory (a restart) still has everything.
        let restarted = RangeCache(directory: directory.path, budget: 1 << 30, logger: .silent)
        let again = try restarted.open(key: key, length: 3_000_000, source: remote, purpose: .playing, uri: "song")
        XCTAssertEqual(try readAll(again), remote.bytes)
        XCTAssertEqual(remote.sent, sent)
    }

    func testProbesFetchOnlyBlocksNearWhatIsRead() throws {
        let directory = TemporaryDirectory("nimbus-cache")
        let remote = FakeRemote(size: 10_000_000)
        let cache = RangeCache(directory: directory.path, budget: 1 << 30, logger: .silent)
        let stream = try cache.open(
            key: CacheKey(account: "test", fileID: "big", version: "1"), length: 10_000_000, source: remote, purpose: .indexing,
            uri: "big")
        XCTAssertEqual(try stream.read(at: 0, count: 1000), Array(remote.bytes[0..<1000]))
        XCTAssertEqual(try stream.read(at: 9_999_872, count: 128), Array(remote.bytes[9_999_872...]))
        XCTAssertEqual(try stream.read(at: 5_000_000, count: 4), Array(remote.bytes[5_000_000..<5_000_004]))
        XCTAssertLessThanOrEqual(remote.sent, 3 * 65536, "three probes, one block each")
    }

    func testADroppedConnectionIsResumedAtTheLastByte() throws {
        let directory = TemporaryDirectory("nimbus-cache")
        let remote = FakeRemote(size: 1_000_000)
        remote.state.withLock {
            $0.dropAfter = 100_000
            $0.failuresLeft = 0
        }
        let cache = RangeCache(directory: directory.path, budget: 1 << 30, logger: .silent)
        let stream = try cache.open(
            key: CacheKey(account: "test", fileID: "drop", version: "1"), length: 1_000_000, source: remote, purpose: .playing,
            uri: "drop")
        XCTAssertEqual(try readAll(stream), remote.bytes)
        XCTAssertLessThan(remote.sent, 1_200_000, "the rest was fetched from where it stopped")
        remote.state.withLock { $0.failuresLeft = 2 }
        let other = try cache.open(
            key: CacheKey(account: "test", fileID: "drop", version: "2"), length: 1_000_000, source: remote, purpose: .playing,
            uri: "drop")
        XCTAssertEqual(try readAll(other), remote.bytes, "two refused connections are retried")
    }

    func testAChangedFileIsNeverSpliced() throws {
        let directory = TemporaryDirectory("nimbus-cache")
        let remote = FakeRemote(size: 500_000)
        let cache = RangeCache(directory: directory.path, budget: 1 << 30, logger: .silent)
        let stream = try cache.open(
            key: CacheKey(account: "test", fileID: "c", version: "1"), length: 500_000, source: remote, purpose: .indexing, uri: "c")
        _ = try stream.read(at: 0, count: 1000)
        remote.state.withLock { $0.changed = true }
        XCTAssertThrowsError(try stream.read(at: 400_000, count: 1000))
        remote.state.withLock { $0.changed = false }
        // What was cached of the old version is gone: it is fetched again.
        let before = remote.sent
        XCTAssertEqual(try stream.read(at: 0, count: 1000), Array(remote.bytes[0..<1000]))
        XCTAssertGreaterThan(remote.sent, before)
    }

    func testEvictionKeepsTheBudgetButNotWhatIsOpen() throws {
        let directory = TemporaryDirectory("nimbus-cache")
        let cache = RangeCache(directory: directory.path, budget: 2_500_000, logger: .silent)
        let open = try cache.open(
            key: CacheKey(account: "t", fileID: "kept", version: "1"), length: 1_000_000, source: FakeRemote(size: 1_000_000),
            purpose: .playing, uri: "kept")
        _ = try readAll(open)
        for index in 0..<4 {
            let remote = FakeRemote(size: 1_000_000)
            let stream = try cache.open(
                key: CacheKey(account: "t", fileID: "f\(index)", version: "1"), length: 1_000_000, source: remote,
                purpose: .playing, uri: "f")
            _ = try readAll(stream)
        }
        let stored = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasSuffix(".data") }
        XCTAssertLessThanOrEqual(stored.count, 3)
        XCTAssertTrue(stored.contains(CacheKey(account: "t", fileID: "kept", version: "1").fileName + ".data"))
    }
}
