import NimbusCue
import NimbusModel
import XCTest

/// CUE sheets through libcue, as MPD's CUE plugin makes songs of them, and sheets that are
/// broken in every way a rip leaves them: none crashes, hangs or invents a track.
final class CueSheetParsingTests: XCTestCase {
    private func tracks(_ text: String) -> [CueTrack] { CueSheet.tracks(Array(text.utf8)) }

    func testTracksTheirRangesAndTags() {
        let sheet = tracks(
            """
            REM GENRE "Hard Rock"
            REM DATE 1999
            REM DISC 2
            PERFORMER "The Band"
            TITLE "The Album"
            FILE "a.flac" WAVE
              TRACK 01 AUDIO
                TITLE "One"
                INDEX 01 00:00:00
              TRACK 02 AUDIO
                TITLE "Two"
                PERFORMER "Guest"
                INDEX 00 01:00:00
                INDEX 01 01:02:37
            FILE "b.flac" WAVE
              TRACK 03 AUDIO
                TITLE "Three"
                INDEX 01 00:00:00
            """)
        XCTAssertEqual(sheet.map(\.file), ["a.flac", "a.flac", "b.flac"])
        XCTAssertEqual(sheet.map(\.start), [0, 62_493, 0])
        XCTAssertEqual(sheet.map(\.end), [62_493, nil, nil], "a track ends where the next one's INDEX 01 begins, in its file")
        XCTAssertEqual(sheet[1].tag.values(.title), ["Two"])
        XCTAssertEqual(sheet[1].tag.values(.artist), ["Guest"])
        XCTAssertEqual(sheet[0].tag.values(.albumArtist), ["The Band"])
        XCTAssertEqual(sheet[0].tag.values(.album), ["The Album"])
        XCTAssertEqual(sheet[0].tag.values(.genre), ["Hard Rock"])
        XCTAssertEqual(sheet[0].tag.values(.date), ["1999"])
        XCTAssertEqual(sheet[0].tag.values(.disc), ["2"])
        XCTAssertEqual(sheet.map { $0.tag.values(.track) }, [["01"], ["02"], ["03"]])
    }

    func testBrokenSheetsGiveWhatTheyCanAndNeverCrash() {
        let broken = [
            "FILE \"a.flac WAVE\n  TRACK 01 AUDIO\n    TITLE \"One\n    INDEX 01 00:00:00\n",
            "TRACK 01 AUDIO\n  INDEX 01 00:00:00\n",
            "FILE \"a.flac\" WAVE\n  TRACK 01 AUDIO\n    INDEX 01 05:00:00\n  TRACK 02 AUDIO\n    INDEX 01 01:00:00\n",
            "FILE \"a.flac\" WAVE\n  TRACK 01 AUDIO\n    INDEX 01 99:99:99\n",
            "", "\u{FEFF}", "not a cue sheet at all", String(repeating: "REM ", count: 100_000),
        ]
        for text in broken {
            let found = tracks(text)
            for track in found {
                XCTAssertGreaterThanOrEqual(track.start, 0, text)
                if let end = track.end { XCTAssertGreaterThan(end, track.start, text) }
            }
        }
        XCTAssertEqual(tracks("TRACK 01 AUDIO\n  INDEX 01 00:00:00\n").count, 0, "no FILE, no track")
        let ten = [UInt8](repeating: 0x41, count: 10 << 20)
        XCTAssertEqual(CueSheet.tracks(ten), [], "a 10 MB sheet is refused unread")
        XCTAssertEqual(CueSheet.tracks(Array("FILE \"a\u{0}.flac\" WAVE\n".utf8)), [])
    }

    func testALegacySheetIsConverted() {
        let bytes = Array("TITLE \"Ol".utf8) + [0xE9, 0x22, 0x0A] + Array("FILE \"x.wav\" WAVE\n TRACK 01 AUDIO\n  TITLE \"".utf8) + [0x80]
            + Array("5\"\n  INDEX 01 00:00:00\n".utf8)
        let sheet = CueSheet.tracks(bytes)
        XCTAssertEqual(sheet.first?.tag.values(.album), ["Olé"])
        XCTAssertEqual(sheet.first?.tag.values(.title), ["€5"], "Windows-1252, not Latin-1")
        XCTAssertEqual(CueSheet.tracks([0xEF, 0xBB, 0xBF] + Array("FILE \"x.wav\" WAVE\n TRACK 01 AUDIO\n  INDEX 01 00:00:00\n".utf8)).count, 1)
    }
}
