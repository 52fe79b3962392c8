import NimbusLibrary
import NimbusModel
import NimbusProtocol
import XCTest

final class FilterTests: XCTestCase {
    private func parse(_ arguments: [String], foldCase: Bool = false) throws -> SongFilter {
        try FilterParser.parse(arguments[...], foldCase: foldCase)
    }

    private func message(_ arguments: [String]) -> String? {
        do {
            _ = try parse(arguments)
            return nil
        } catch let error as ProtocolError {
            return error.message
        } catch {
            return "\(error)"
        }
    }

    private func song(_ uri: String, _ items: [(TagType, String)], modified: Int64 = 100, format: AudioFormat? = nil) -> Song {
        Song(uri: uri, lastModified: modified, format: format, tag: Tag(items: items.map { TagItem($0.0, $0.1) }, duration: 1000))
    }

    func testExpressionTree() throws {
        XCTAssertEqual(
            try parse(["((artist == 'A') AND (!(title contains \"b\")))"]),
            .and([
                .tag(.artist, StringMatch("A", kind: .exact, foldCase: false), negated: false),
                .not(.tag(.title, StringMatch("b", kind: .substring, foldCase: false), negated: false)),
            ]))
        XCTAssertEqual(try parse(["(base 'Beta')"]), .base("Beta"))
        XCTAssertEqual(try parse(["(modified-since '1700000000')"]), .modifiedSince(1_700_000_000))
        XCTAssertEqual(try parse(["(modified-since '2020-01-01T00:00:00Z')"]), .modifiedSince(1_577_836_800))
        XCTAssertEqual(try parse(["(file != 'x')"]), .uri(StringMatch("x", kind: .exact, foldCase: false), negated: true))
        XCTAssertEqual(
            try parse(["(AudioFormat =~ '44100:*:2')"]),
            .audioFormat(AudioFormatPattern(sampleRate: 44100, sample: nil, channels: 2)))
    }

    func testLegacyPairsAndMixing() throws {
        XCTAssertEqual(
            try parse(["artist", "A", "any", "x"], foldCase: true),
            .and([
                .tag(.artist, StringMatch("A", kind: .substring, foldCase: true), negated: false),
                .tag(nil, StringMatch("x", kind: .substring, foldCase: true), negated: false),
            ]))
        XCTAssertEqual(try parse(["filename", "f"]), .uri(StringMatch("f", kind: .exact, foldCase: false), negated: false))
    }

    func testMPDErrorMessages() {
        XCTAssertEqual(message([]), "Incorrect number of filter arguments")
        XCTAssertEqual(message(["artist"]), "Incorrect number of filter arguments")
        XCTAssertEqual(message(["nosuch", "x"]), "Unknown filter type")
        XCTAssertEqual(message(["("]), "Word expected")
        XCTAssertEqual(message(["(artist)"]), "Unknown filter operator: )")
        XCTAssertEqual(message(["(artist ~= 'x')"]), "Unknown filter operator: ~= 'x')")
        XCTAssertEqual(message(["(artist == x)"]), "Quoted string expected")
        XCTAssertEqual(message(["(artist == 'x"]), "Closing quote not found")
        XCTAssertEqual(message(["(artist == 'x')x"]), "Unparsed garbage after expression")
        XCTAssertEqual(message(["(artist == 'x'"]), "')' expected")
        XCTAssertEqual(message(["(!artist == 'x')"]), "'(' expected")
        XCTAssertEqual(message(["((artist == 'x') or (album == 'y'))"]), "'AND' expected")
        XCTAssertEqual(message(["(prio > 1)"]), "'>=' expected")
        XCTAssertEqual(message(["(prio >= x)"]), "Number expected")
        // MPD 0.24 looks an expression's base up instead (`''` is everything); the legacy
        // pair is still checked as a path.
        XCTAssertNil(message(["(base '')"]))
        XCTAssertEqual(message(["base", ""]), "Bad URI")
        XCTAssertEqual(message(["(prio >= -1)"]), "Invalid priority value")
        XCTAssertEqual(message(["(modified-since 'soon')"]), "Failed to parse date")
        XCTAssertEqual(message(["(AudioFormat != '1:16:2')"]), "'==' or '=~' expected")
        XCTAssertEqual(message(["(AudioFormat == 'x')"]), "Failed to parse the sample rate")
    }

    func testEvaluationFollowsMPDSemantics() throws {
        let tagged = song("A/1.flac", [(.artist, "Alpha"), (.artist, "Ёлка"), (.title, "Dawn")], format: AudioFormat(sampleRate: 44100, sample: .s16, channels: 2))
        let bare = song("B/2.wav", [], modified: 50)
        func matches(_ arguments: [String], _ candidate: Song, foldCase: Bool = false) throws -> Bool {
            try FilterEvaluator(try parse(arguments, foldCase: foldCase)).matches(candidate)
        }
        XCTAssertTrue(try matches(["(artist == 'Ёлка')"], tagged), "any value of a multi-valued tag")
        XCTAssertFalse(try matches(["(artist == 'ёлка')"], tagged))
        XCTAssertTrue(try matches(["(artist == 'ёЛКА')"], tagged, foldCase: true), "search folds non-ASCII case")
        XCTAssertTrue(try matches(["(title contains 'AW')"], tagged, foldCase: true))
        XCTAssertFalse(try matches(["(title contains 'AW')"], tagged))
        XCTAssertTrue(try matches(["(artist == '')"], bare), "an empty value matches a missing tag")
        XCTAssertTrue(try matches(["(artist != 'Alpha')"], bare), "negation matches songs without the tag")
        XCTAssertFalse(try matches(["(artist != 'Alpha')"], tagged))
        XCTAssertTrue(try matches(["(albumartist == 'Alpha')"], tagged), "AlbumArtist falls back to Artist")
        XCTAssertTrue(try matches(["(base 'A')"], tagged))
        XCTAssertFalse(try matches(["(base 'A')"], song("AB/1.flac", [])))
        XCTAssertTrue(try matches(["(modified-since '60')"], tagged))
        XCTAssertFalse(try matches(["(modified-since '60')"], bare))
        XCTAssertTrue(try matches(["(AudioFormat == '44100:16:2')"], tagged))
        XCTAssertFalse(try matches(["(AudioFormat == '44100:16:2')"], bare))
        XCTAssertTrue(try matches(["(title =~ '^D.*n$')"], tagged))
        XCTAssertTrue(try matches(["(any contains 'lph')"], tagged))
        XCTAssertTrue(try matches(["(file == 'A/1.flac')"], tagged))
        XCTAssertThrowsError(try FilterEvaluator(try parse(["(title =~ '(')"])))
    }
}
