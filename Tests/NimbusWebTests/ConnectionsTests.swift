import XCTest

@testable import NimbusWeb

/// The web thread's table of what each connection is doing: one state at a time, the count
/// of streams kept exact through every change, and a forgotten or replaced stream's worker
/// told to stop.
final class ConnectionsTests: XCTestCase {
    private func streaming(_ token: UInt64) -> (WebConnection, APIStream) {
        let stream = APIStream()
        return (.streaming(APIStreaming(token: token, stream: stream, remaining: 10)), stream)
    }

    func testOneStateAtATimeAndTheStreamCountFollows() {
        var connections = Connections()
        connections[1] = .waitingForAnswer(token: 7)
        XCTAssertEqual(connections.answerToken(1), 7)
        XCTAssertNil(connections.stream(1))
        let (state, stream) = streaming(7)
        connections[1] = state
        XCTAssertNil(connections.answerToken(1), "the answer became a stream")
        XCTAssertEqual(connections.streamCount, 1)
        XCTAssertEqual(connections.streaming, [1])
        connections[1] = .answering(HTTPResponse(body: [1, 2, 3]))
        XCTAssertEqual(connections.streamCount, 0, "a stream replaced is no longer counted")
        XCTAssertEqual(connections.response(1)?.body, [1, 2, 3])
        XCTAssertFalse(stream.isCancelled, "replacing is the caller's business; forgetting cancels")
        connections.forget(1)
        XCTAssertNil(connections[1])
    }

    func testForgettingAStreamStopsItsWorker() {
        var connections = Connections()
        let (first, stream) = streaming(1)
        connections[10] = first
        let (second, other) = streaming(2)
        connections[11] = second
        connections[12] = .waitingForCover(PendingCover(token: 3, ifNoneMatch: nil))
        XCTAssertEqual(connections.streamCount, 2)
        connections.forget(10)
        XCTAssertTrue(stream.isCancelled)
        XCTAssertFalse(other.isCancelled)
        XCTAssertEqual(connections.streamCount, 1)
        connections.cancelStreams()
        XCTAssertTrue(other.isCancelled)
        XCTAssertEqual(connections.streamCount, 0)
        XCTAssertEqual(connections.cover(12)?.token, 3, "what is not a stream stays")
        XCTAssertNil(connections.forget(99), "an unknown connection is nothing to forget")
    }
}
