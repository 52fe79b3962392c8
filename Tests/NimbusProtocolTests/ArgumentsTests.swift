import NimbusProtocol
import XCTest

final class ArgumentsTests: XCTestCase {
    private func message(_ body: () throws -> Any) -> String? {
        do {
            _ = try body()
            return nil
        } catch let error as ProtocolError {
            XCTAssertEqual(error.code, .argument)
            return error.message
        } catch {
            return "unexpected \(error)"
        }
    }

    func testUnsignedFollowsStrtoul() throws {
        XCTAssertEqual(try Arguments.unsigned("64"), 64)
        XCTAssertEqual(try Arguments.unsigned("+64"), 64)
        XCTAssertEqual(try Arguments.unsigned(" 64"), 64)
        XCTAssertEqual(message { try Arguments.unsigned("64x") }, "Integer expected: 64x")
        XCTAssertEqual(message { try Arguments.unsigned("") }, "Integer expected: ")
        XCTAssertEqual(message { try Arguments.unsigned("0x40") }, "Integer expected: 0x40")
        XCTAssertEqual(message { try Arguments.unsigned("-1") }, "Number too large: -1")
        XCTAssertEqual(message { try Arguments.unsigned("101", max: 100) }, "Number too large: 101")
    }

    func testSignedInteger() throws {
        XCTAssertEqual(try Arguments.integer("-5"), -5)
        XCTAssertEqual(message { try Arguments.integer("abc") }, "Integer expected: abc")
        XCTAssertEqual(message { try Arguments.integer("3000000000") }, "Number too large: 3000000000")
    }

    func testBoolean() throws {
        XCTAssertEqual(try Arguments.bool("1"), true)
        XCTAssertEqual(try Arguments.bool("0"), false)
        XCTAssertEqual(message { try Arguments.bool("2") }, "Boolean (0/1) expected: 2")
        XCTAssertEqual(message { try Arguments.bool("on") }, "Boolean (0/1) expected: on")
    }

    func testFloatAndSongTime() throws {
        XCTAssertEqual(try Arguments.float("1.5"), 1.5)
        XCTAssertEqual(try Arguments.float("-17"), -17)
        XCTAssertEqual(message { try Arguments.float("x") }, "Float expected: x")
        XCTAssertEqual(message { try Arguments.songTime("-1") }, "Negative value not allowed: -1")
    }

    func testRanges() throws {
        XCTAssertEqual(try Arguments.range("5"), ProtocolRange(start: 5, end: 6))
        XCTAssertEqual(try Arguments.range("2:7"), ProtocolRange(start: 2, end: 7))
        XCTAssertEqual(try Arguments.range("3:"), ProtocolRange(start: 3, end: nil))
        XCTAssertEqual(try Arguments.range("4:4"), ProtocolRange(start: 4, end: 4))
        XCTAssertEqual(try Arguments.range("-1"), .all)
        XCTAssertEqual(message { try Arguments.range("5:2") }, "Malformed range: 5:2")
        XCTAssertEqual(message { try Arguments.range("abc") }, "Integer or range expected: abc")
        XCTAssertEqual(message { try Arguments.range("1:x") }, "Integer or range expected: 1:x")
        XCTAssertEqual(message { try Arguments.range("-2") }, "Number is negative: -2")
        XCTAssertEqual(message { try Arguments.range("1:-2") }, "Number is negative: 1:-2")
        XCTAssertEqual(message { try Arguments.range("9999999999") }, "Number too large: 9999999999")
    }

    func testResolvedRangeClampsToCount() {
        XCTAssertEqual(ProtocolRange(start: 2, end: nil).resolved(count: 5), 2..<5)
        XCTAssertEqual(ProtocolRange(start: 2, end: 9).resolved(count: 5), 2..<5)
        XCTAssertEqual(ProtocolRange(start: 7, end: 9).resolved(count: 5), 5..<5)
    }
}
