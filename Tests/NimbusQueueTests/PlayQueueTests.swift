import NimbusModel
import NimbusQueue
import XCTest

/// The queue model: ids, positions, versions for plchanges, and the play order.
final class PlayQueueTests: XCTestCase {
    private func queue(_ count: Int) -> PlayQueue {
        var queue = PlayQueue()
        for index in 0..<count { queue.add(Song(uri: "s\(index)")) }
        queue.commitChange()
        return queue
    }

    private func uris(_ queue: PlayQueue) -> [String] { queue.items.map(\.song.uri) }

    func testIdsAreStableAndPositionsFollowMoves() {
        var queue = queue(4)
        XCTAssertEqual(queue.items.map(\.id), [1, 2, 3, 4])
        queue.moveRange(0..<2, to: 2)
        XCTAssertEqual(uris(queue), ["s2", "s3", "s0", "s1"])
        XCTAssertEqual(queue.position(ofID: 1), 2)
        queue.remove(at: 0)
        XCTAssertEqual(queue.position(ofID: 1), 1)
        XCTAssertNil(queue.position(ofID: 3))
        XCTAssertEqual(queue.order, [0, 1, 2], "the natural order stays the identity")
    }

    func testChangesReportExactlyTheTouchedEntries() {
        var queue = queue(5)
        let seen = queue.version
        queue.swap(1, 3)
        queue.commitChange()
        XCTAssertEqual(queue.changes(since: seen), [1, 3])
        XCTAssertEqual(queue.changes(since: queue.version), [])
        XCTAssertEqual(queue.changes(since: queue.version + 5), [0, 1, 2, 3, 4], "a version from the future gets everything")
        let beforeDelete = queue.version
        queue.remove(at: 2)
        queue.commitChange()
        XCTAssertEqual(queue.changes(since: beforeDelete), [2, 3], "entries after a deletion moved")
    }

    func testNextOrderFollowsMPDsRules() {
        let queue = queue(3)
        var options = PlaybackOptions()
        XCTAssertEqual(queue.nextOrder(after: 0, options: options), 1)
        XCTAssertNil(queue.nextOrder(after: 2, options: options))
        options.repeatMode = true
        XCTAssertEqual(queue.nextOrder(after: 2, options: options), 0)
        options.single = .on
        XCTAssertEqual(queue.nextOrder(after: 1, options: options), 1, "single with repeat repeats the song")
        options.consume = .on
        XCTAssertEqual(queue.nextOrder(after: 1, options: options), 2)
        XCTAssertEqual(queue.previousOrder(before: 0, options: options), 2)
    }

    func testRandomOrderIsAPermutationWithTheCurrentSongFirst() {
        var queue = queue(20)
        queue.setRandom(true, current: 7)
        XCTAssertEqual(queue.order.first, 7)
        XCTAssertEqual(Set(queue.order), Set(0..<20))
        queue.add(Song(uri: "late"), after: 0)
        XCTAssertEqual(Set(queue.order), Set(0..<21))
        XCTAssertEqual(queue.order.first, 7, "a new song is shuffled in after the current one")
        queue.setRandom(false, current: nil)
        XCTAssertEqual(queue.order, Array(0..<21))
    }

    func testPriorityMovesASongAheadInRandomMode() {
        var queue = queue(10)
        queue.setRandom(true, current: 0)
        XCTAssertTrue(queue.setPriority(200, at: 9, currentOrder: 0))
        XCTAssertEqual(queue.order[1], 9, "the highest priority plays next")
        XCTAssertFalse(queue.setPriority(200, at: 9, currentOrder: 0), "unchanged")
    }

    func testShuffleKeepsThePlayingSongFirstInTheRange() {
        var queue = queue(8)
        let kept = queue.shuffle(2..<8, keeping: 5)
        XCTAssertEqual(kept, 2)
        XCTAssertEqual(queue[2].song.uri, "s5")
        XCTAssertEqual(Set(uris(queue)), Set((0..<8).map { "s\($0)" }))
        XCTAssertEqual(Array(uris(queue).prefix(2)), ["s0", "s1"])
    }

    /// The range is packed into two 32-bit fields: nil, "from 0 to the end" and a closed
    /// range stay three different answers, and a negative or huge value is clamped.
    func testRangesKeepTheirMeaningWhenPacked() {
        var queue = queue(2)
        XCTAssertNil(queue[0].range)
        queue.setRange(SongRange(start: 0, end: nil), at: 0)
        XCTAssertEqual(queue[0].range, SongRange(start: 0, end: nil))
        queue.setRange(SongRange(start: 1500, end: 5000), at: 1)
        XCTAssertEqual(queue[1].range, SongRange(start: 1500, end: 5000))
        XCTAssertEqual(queue[1].playedLength, 3500)
        queue.setRange(nil, at: 0)
        XCTAssertNil(queue[0].range)
        queue.setRange(SongRange(start: -5, end: Int(UInt32.max) + 7), at: 0)
        XCTAssertEqual(queue[0].range, SongRange(start: 0, end: Int(UInt32.max) - 1))
        XCTAssertEqual(queue.position(ofID: 2), 1)
        XCTAssertNil(queue.position(ofID: -1))
        XCTAssertNil(queue.position(ofID: Int(UInt32.max) + 2))
    }
}
