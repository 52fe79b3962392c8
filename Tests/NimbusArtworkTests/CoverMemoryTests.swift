import NimbusArtwork
import XCTest

final class CoverMemoryTests: XCTestCase {
    func testTheLeastRecentlyUsedGoFirstWithinTheByteBound() {
        let memory = CoverMemory(capacity: 4400)
        memory.remember([UInt8](repeating: 1, count: 1000), for: "a")
        memory.remember([UInt8](repeating: 2, count: 1000), for: "b")
        memory.remember(nil, for: "none")
        XCTAssertEqual(memory.cover(for: "a")??.first, 1, "a used again: b is now the oldest")
        memory.remember([UInt8](repeating: 3, count: 1000), for: "c")
        memory.remember([UInt8](repeating: 4, count: 1000), for: "d")
        memory.remember([UInt8](repeating: 5, count: 1000), for: "e")
        XCTAssertTrue(memory.cover(for: "b") == nil, "evicted")
        XCTAssertTrue(memory.cover(for: "a") != nil)
        XCTAssertEqual(memory.cover(for: "none").map { $0 == nil }, true, "a miss is remembered as a miss")
        XCTAssertTrue(memory.cover(for: "never") == nil, "unknown is not a miss")
        memory.remember([UInt8](repeating: 6, count: 3000), for: "huge")
        XCTAssertTrue(memory.cover(for: "huge") == nil, "one cover may not take over a quarter of the memory")
    }
}
