import NimbusPCM
import XCTest

/// MPD's `routes` syntax and what the filter does with channels.
final class RouteFilterTests: XCTestCase {
    func testRoutesAreParsedAsMPDParsesThem() throws {
        XCTAssertEqual(try RouteFilter(routes: "0>1, 1>0").sources, [1, 0])
        XCTAssertEqual(try RouteFilter(routes: "0>0, 1>1, 0>2, 1>3").sources, [0, 1, 0, 1])
        XCTAssertEqual(try RouteFilter(routes: "1>2").sources, [-1, -1, 1], "unnamed destinations are silent")
        XCTAssertThrowsError(try RouteFilter(routes: "0-1")) { XCTAssertEqual("\($0)", "Malformed 'routes' specification") }
        XCTAssertThrowsError(try RouteFilter(routes: "9>0")) { XCTAssertEqual("\($0)", "Invalid source channel number: 9") }
        XCTAssertThrowsError(try RouteFilter(routes: "0>8")) { XCTAssertEqual("\($0)", "Invalid destination channel number: 8") }
    }

    func testStereoBecomesFourChannels() throws {
        let filter = try RouteFilter(routes: "0>0, 1>1, 0>2, 1>3")
        XCTAssertEqual(filter.open(FloatFormat(sampleRate: 44100, channels: 2)).channels, 4)
        var samples: [Float] = [0.1, 0.2, 0.3, 0.4]
        let out = samples.withUnsafeMutableBufferPointer { Array(filter.filter($0)) }
        XCTAssertEqual(out, [0.1, 0.2, 0.1, 0.2, 0.3, 0.4, 0.3, 0.4])
    }
}
