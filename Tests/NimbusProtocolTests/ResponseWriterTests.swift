import NimbusProtocol
import NimbusModel
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

final class ResponseWriterNumberTests: XCTestCase {
    private func text(_ write: (inout ResponseWriter) -> Void) -> String {
        var out = ResponseWriter()
        write(&out)
        return String(decoding: out.bytes, as: UTF8.self)
    }

    func testTimestampsWrittenInPlaceMatchTheCalendar() {
        let samples: [Int64] = [0, 59, 86_399, 86_400, 951_782_400, 951_868_799, 1_700_000_000, 4_102_444_800, 253_402_300_799, -1, -86_401]
        for seconds in samples {
            XCTAssertEqual(text { $0.field("T", iso8601: seconds) }, "T: \(TimeFormat.iso8601(seconds))\n", "\(seconds)")
        }
        XCTAssertEqual(text { $0.field("T", iso8601: 951_782_400) }, "T: 2000-02-29T00:00:00Z\n")
        XCTAssertEqual(text { $0.field("T", iso8601: 253_402_300_800) }, "T: \(TimeFormat.iso8601(253_402_300_800))\n", "year 10000")
    }

    func testThousandthsFormatFormatsAndJoins() {
        for (value, expected) in [(0, "0.000"), (7, "0.007"), (999, "0.999"), (1000, "1.000"), (215_043, "215.043"), (-1, "-0.001"), (-1500, "-1.500")] {
            XCTAssertEqual(text { $0.field("duration", thousandths: value) }, "duration: \(expected)\n")
            XCTAssertEqual(NumberFormat.seconds(Double(value) / 1000), expected)
        }
        for format in [AudioFormat(sampleRate: 44100, sample: .s16, channels: 2), AudioFormat(sampleRate: 48000, sample: .float, channels: 6),
            AudioFormat(sampleRate: 352_800, sample: .dsd, channels: 2), AudioFormat(sampleRate: 8000, sample: .s24, channels: 1)]
        {
            XCTAssertEqual(text { $0.field("Format", format: format) }, "Format: \(format.description)\n")
        }
        XCTAssertEqual(text { $0.field("file", directory: "A/B", name: "c.flac") }, "file: A/B/c.flac\n")
        XCTAssertEqual(text { $0.field("file", directory: "", name: "c.flac") }, "file: c.flac\n")
    }
}
