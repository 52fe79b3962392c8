import NimbusProtocol
import XCTest

final class ResponseWriterTests: XCTestCase {
    func testFieldsAndAck() {
        var writer = ResponseWriter()
        writer.field("volume", 80)
        writer.field("state", "play")
        writer.ack(ProtocolError(.noExist, "No such song"), index: 2, command: "playid")
        XCTAssertEqual(
            String(decoding: writer.take(), as: UTF8.self),
            "volume: 80\nstate: play\nACK [50@2] {playid} No such song\n")
        XCTAssertTrue(writer.isEmpty)
    }

    func testBinaryChunk() {
        var writer = ResponseWriter()
        writer.binary([0, 10, 255])
        writer.ok()
        XCTAssertEqual(Array(writer.bytes), Array("binary: 3\n".utf8) + [0, 10, 255, 10] + Array("OK\n".utf8))
    }

    func testSecondsHaveThreeDecimals() {
        XCTAssertEqual(NumberFormat.seconds(0), "0.000")
        XCTAssertEqual(NumberFormat.seconds(5.2964), "5.296")
        XCTAssertEqual(NumberFormat.seconds(20), "20.000")
        XCTAssertEqual(NumberFormat.seconds(1.0005), "1.001")
    }

    func testMinimalFloats() {
        XCTAssertEqual(NumberFormat.minimal(0), "0")
        XCTAssertEqual(NumberFormat.minimal(-17), "-17")
        XCTAssertEqual(NumberFormat.minimal(-15.5), "-15.5")
        XCTAssertEqual(NumberFormat.minimal(0.1), "0.1")
    }
}
