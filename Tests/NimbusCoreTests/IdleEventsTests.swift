import NimbusModel
import XCTest

final class IdleEventsTests: XCTestCase {
    func testFourteenSubsystemsInMPDOrder() {
        XCTAssertEqual(IdleEvents.names.count, 14)
        XCTAssertEqual(IdleEvents.all.names, IdleEvents.names)
        XCTAssertEqual(IdleEvents([.player, .database, .partition]).names, ["database", "player", "partition"])
    }

    func testNamesParseCaseInsensitively() {
        XCTAssertEqual(IdleEvents(name: "PLAYER"), .player)
        XCTAssertEqual(IdleEvents(name: "stored_playlist"), .storedPlaylist)
        XCTAssertNil(IdleEvents(name: "bogus"))
    }

    func testTagNamesRoundTrip() {
        for tag in TagType.allCases {
            XCTAssertEqual(TagType(name: tag.wireName.uppercased()), tag)
        }
        XCTAssertEqual(TagMask.defaultEnabled.tags.count, 34)
        XCTAssertFalse(TagMask.defaultEnabled.contains(.comment))
    }
}
