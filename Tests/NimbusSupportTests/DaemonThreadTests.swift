import Foundation
import NimbusSupport
import Synchronization
import XCTest

/// The kernel knows each daemon thread by the name it was started with, as `top -H` shows it.
final class DaemonThreadTests: XCTestCase {
    /// What /proc says the calling thread is called.
    private static func kernelNameOfCurrentThread() -> String? {
        let path = "/proc/thread-self/comm"
        return (try? String(contentsOfFile: path, encoding: .utf8))?.trimmingCharacters(in: .newlines)
    }

    private func nameSeen(startingAs name: String) -> String? {
        let seen = Mutex<String??>(nil)
        DaemonThread.start(name: name) { seen.withLock { $0 = .some(Self.kernelNameOfCurrentThread()) } }
        let deadline = Date().addingTimeInterval(10)
        while seen.withLock({ $0 == nil }), Date() < deadline { usleep(1_000) }
        return seen.withLock { $0 } ?? nil
    }

    func testTheKernelSeesTheThreadsName() {
        XCTAssertEqual(nameSeen(startingAs: "decoder"), "decoder")
    }

    func testALongNameKeepsItsFirstFifteenBytes() {
        XCTAssertEqual(nameSeen(startingAs: "output-living-room-speakers"), "output-living-r")
    }

    func testANameIsNeverCutInsideACharacter() {
        // "output-caféééé": the 15th byte is the first half of the third "é".
        XCTAssertEqual(DaemonThread.kernelName("output-caféééé"), "output-caféé")
        XCTAssertEqual(DaemonThread.kernelName("output-caféééé").utf8.count, 14)
        XCTAssertEqual(nameSeen(startingAs: "output-caféééé"), "output-caféé")
        XCTAssertEqual(DaemonThread.kernelName(""), "")
    }
}
