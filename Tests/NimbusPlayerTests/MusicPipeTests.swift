import Foundation
import NimbusHarness
import XCTest

@testable import NimbusPlayer

/// The bounded ring between the decoder thread and the outputs, driven directly.
final class MusicPipeTests: XCTestCase {
    private static func write(_ pipe: MusicPipe, token: UInt64, _ value: UInt8, first: Bool = false, generation: Int = 0) -> Bool {
        pipe.produce(generation: generation) { chunk in
            chunk.token = token
            chunk.first = first
            chunk.count = 4
            chunk.bytes[0] = value
        }
    }

    private static func read(_ pipe: MusicPipe, _ consumer: Int, generation: Int = 0) -> (token: UInt64, value: UInt8)? {
        var got: (UInt64, UInt8)?
        guard case .chunk = pipe.consume(consumer, generation: generation, { got = ($0.token, $0.bytes[0]) }) else { return nil }
        return got
    }

    func testEveryConsumerReadsEveryChunkInOrder() {
        let pipe = MusicPipe(capacity: 4)
        pipe.addConsumer(1)
        pipe.addConsumer(2)
        for value in 1...3 { XCTAssertTrue(Self.write(pipe, token: 7, UInt8(value))) }
        for consumer in [1, 2] {
            XCTAssertEqual((1...3).compactMap { _ in Self.read(pipe, consumer)?.value }, [1, 2, 3])
        }
        XCTAssertEqual(pipe.buffered, 0)
    }

    func testTheProducerWaitsForTheSlowestConsumer() {
        let pipe = MusicPipe(capacity: 2)
        pipe.addConsumer(1)
        XCTAssertTrue(Self.write(pipe, token: 1, 1))
        XCTAssertTrue(Self.write(pipe, token: 1, 2))
        let third = DispatchSemaphore(value: 0)
        Thread {
            XCTAssertTrue(Self.write(pipe, token: 1, 3))
            third.signal()
        }.start()
        XCTAssertEqual(third.wait(timeout: .now() + 0.3), .timedOut, "a full pipe must block the producer")
        XCTAssertEqual(Self.read(pipe, 1)?.value, 1)
        // One chunk free is below the wake-up threshold; draining reaches it.
        XCTAssertEqual(Self.read(pipe, 1)?.value, 2)
        XCTAssertEqual(third.wait(timeout: .now() + 5), .success, "the producer was not woken")
        XCTAssertEqual(Self.read(pipe, 1)?.value, 3)
    }

    func testClearDropsWhatIsBufferedAndWakesEverybody() {
        let pipe = MusicPipe(capacity: 4)
        let cleared = LockedBox(false)
        pipe.addConsumer(1) { cleared.set(true) }
        XCTAssertTrue(Self.write(pipe, token: 1, 1))
        let generation = pipe.clear()
        XCTAssertEqual(generation, 1)
        XCTAssertTrue(cleared.value, "the output's wait is cut short")
        guard case .cleared(let seen) = pipe.consume(1, generation: 0, { _ in XCTFail("a cleared chunk was read") }) else {
            return XCTFail("the reader did not learn of the clear")
        }
        XCTAssertEqual(seen, 1)
        XCTAssertFalse(Self.write(pipe, token: 1, 2, generation: 0), "a producer of the old generation is refused")
        XCTAssertTrue(Self.write(pipe, token: 2, 3, generation: 1))
        XCTAssertEqual(Self.read(pipe, 1, generation: 1)?.value, 3)
    }

    func testTruncateRemovesAnUnheardNextSong() {
        let pipe = MusicPipe(capacity: 8)
        pipe.addConsumer(1)
        XCTAssertTrue(Self.write(pipe, token: 1, 1, first: true))
        XCTAssertTrue(Self.write(pipe, token: 2, 2, first: true))
        XCTAssertTrue(Self.write(pipe, token: 2, 3))
        XCTAssertTrue(pipe.truncate(fromToken: 2))
        XCTAssertEqual(pipe.buffered, 1)
        XCTAssertEqual(Self.read(pipe, 1)?.token, 1)
    }

    func testTruncateRefusesASongOneOutputAlreadyPlays() {
        let pipe = MusicPipe(capacity: 8)
        pipe.addConsumer(1)
        pipe.addConsumer(2)
        XCTAssertTrue(Self.write(pipe, token: 1, 1, first: true))
        XCTAssertTrue(Self.write(pipe, token: 2, 2, first: true))
        XCTAssertTrue(Self.write(pipe, token: 2, 3))
        _ = Self.read(pipe, 1)
        _ = Self.read(pipe, 1)
        XCTAssertFalse(pipe.truncate(fromToken: 2), "output 1 already reads song 2, output 2 has not")
        XCTAssertEqual(pipe.buffered, 3, "nothing was removed")
    }

    func testCloseEndsEveryWait() {
        let pipe = MusicPipe(capacity: 2)
        pipe.addConsumer(1)
        let done = expectation(description: "reader woke")
        Thread {
            if case .closed = pipe.consume(1, generation: 0, { _ in }) { done.fulfill() }
        }.start()
        XCTAssertTrue(waitUntil { pipe.waitingConsumers == 1 }, "the reader waits on the empty pipe")
        pipe.close()
        wait(for: [done], timeout: 5)
        XCTAssertFalse(Self.write(pipe, token: 1, 1))
    }
}
