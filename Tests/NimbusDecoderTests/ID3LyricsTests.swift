import XCTest

@testable import NimbusDecoder
import NimbusInput

/// Timed lyrics in ID3v2 SYLT frames, which libmpg123 does not hand over, as LRC lines.
final class ID3LyricsTests: XCTestCase {
    private func synchsafe(_ value: Int) -> [UInt8] {
        [UInt8(value >> 21 & 0x7F), UInt8(value >> 14 & 0x7F), UInt8(value >> 7 & 0x7F), UInt8(value & 0x7F)]
    }

    private func tag(_ frames: [(String, [UInt8])]) -> [UInt8] {
        var body: [UInt8] = []
        for (id, frame) in frames { body += Array(id.utf8) + synchsafe(frame.count) + [0, 0] + frame }
        return Array("ID3".utf8) + [4, 0, 0] + synchsafe(body.count) + body
    }

    private func time(_ value: UInt32) -> [UInt8] { withUnsafeBytes(of: value.bigEndian) { Array($0) } }

    func testPlainAndTimedLyricsInEveryEncoding() {
        var utf16: [UInt8] = [0xFF, 0xFE]
        for unit in "Héllo".utf16 { utf16 += [UInt8(unit & 0xFF), UInt8(unit >> 8)] }
        let comments = ID3Lyrics.comments(
            in: tag([
                ("TIT2", [3] + Array("Title".utf8)),
                ("USLT", [3] + Array("eng".utf8) + [0] + Array("left to libmpg123".utf8)),
                ("SYLT", [1] + Array("eng".utf8) + [2, 1] + [0xFF, 0xFE, 0, 0] + utf16 + [0, 0] + time(5)),
                ("SYLT", [0] + Array("eng".utf8) + [2, 1] + [0] + Array("\nUp".utf8) + [0] + time(61_230) + Array("Down".utf8) + [0] + time(2500)),
                ("SYLT", [3] + Array("eng".utf8) + [1, 1] + [0] + Array("frames".utf8) + [0] + time(10)),
            ]))
        XCTAssertEqual(comments.map(\.key), ["SYNCEDLYRICS", "SYNCEDLYRICS"], "SYLT timed in MPEG frames is left out")
        XCTAssertEqual(comments[0].value, "[00:00.00]Héllo", "UTF-16 with its byte order mark")
        XCTAssertEqual(comments[1].value, "[01:01.23]Up\n[00:02.50]Down")
    }

    func testDamagedTagsGiveWhatIsWhole() {
        XCTAssertEqual(ID3Lyrics.comments(in: Array("ID3".utf8) + [4, 0, 0, 0, 0, 0x7F, 0x7F]).count, 0, "a size past the end")
        XCTAssertEqual(ID3Lyrics.comments(in: tag([("SYLT", [3, 0x65])])).count, 0, "a frame too short")
        XCTAssertEqual(ID3Lyrics.comments(in: tag([("SYLT", [3] + Array("eng".utf8) + [2, 1, 0] + Array("cut".utf8) + [0, 1])])).count, 0)
        XCTAssertEqual(ID3Lyrics.comments(in: Array(repeating: 0xFF, count: 64)).count, 0, "no tag")
    }
}
