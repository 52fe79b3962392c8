import NimbusInput
import XCTest

final class RangeSetTests: XCTestCase {
    func testInsertMergesAndFindsRuns() {
        var set = RangeSet()
        set.insert(10..<20)
        set.insert(30..<40)
        set.insert(20..<25)
        XCTAssertEqual(set.ranges, [10..<25, 30..<40])
        set.insert(24..<31)
        XCTAssertEqual(set.ranges, [10..<40])
        XCTAssertEqual(set.run(containing: 15), 10..<40)
        XCTAssertNil(set.run(containing: 40))
        XCTAssertTrue(set.contains(12..<39))
        XCTAssertFalse(set.contains(5..<12))
        XCTAssertEqual(set.byteCount, 30)
    }

    func testGapsAndNextCovered() {
        let set = RangeSet([0..<10, 20..<30, 50..<60])
        XCTAssertEqual(set.gaps(in: 5..<55), [10..<20, 30..<50])
        XCTAssertEqual(set.gaps(in: 60..<70), [60..<70])
        XCTAssertEqual(set.nextCovered(after: 12), 20)
        XCTAssertEqual(set.nextCovered(after: 25), 25)
        XCTAssertNil(set.nextCovered(after: 60))
    }
}
