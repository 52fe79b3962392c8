import NimbusProtocol
import XCTest

final class TokenizerTests: XCTestCase {
    private func tokenize(_ text: String) throws(Tokenizer.Failure) -> Tokenizer.Request {
        try Tokenizer.tokenize(Tokenizer.trimmedLine(Array(text.utf8)[...]))
    }

    private func failure(_ text: String) -> Tokenizer.Failure? {
        do {
            _ = try tokenize(text)
            return nil
        } catch {
            return error
        }
    }

    func testCommandWithoutArguments() throws {
        XCTAssertEqual(try tokenize("ping"), .init(name: "ping", arguments: []))
    }

    func testTrailingWhitespaceAndCarriageReturnAreStripped() throws {
        XCTAssertEqual(try tokenize("ping \t\r"), .init(name: "ping", arguments: []))
    }

    func testUnquotedAndQuotedArgumentsMix() throws {
        XCTAssertEqual(
            try tokenize(#"find Artist "Alpha Band"  group  album"#),
            .init(name: "find", arguments: ["Artist", "Alpha Band", "group", "album"]))
    }

    func testTabsSeparateArguments() throws {
        XCTAssertEqual(try tokenize("addid\tx\t3"), .init(name: "addid", arguments: ["x", "3"]))
    }

    func testBackslashEscapesInsideQuotes() throws {
        XCTAssertEqual(try tokenize(#"find "(Artist == \"foo\\'bar\\\"\")""#).arguments, [#"(Artist == "foo\'bar\"")"#])
    }

    func testBackslashIsLiteralOutsideQuotes() throws {
        XCTAssertEqual(try tokenize(#"lsinfo Alpha\ Band"#).arguments, [#"Alpha\"#, "Band"])
    }

    func testEmptyQuotedArgument() throws {
        XCTAssertEqual(try tokenize(#"lsinfo """#).arguments, [""])
    }

    func testUTF8ArgumentsSurvive() throws {
        XCTAssertEqual(try tokenize("search any \"Ёлка ünïcode\"").arguments, ["any", "Ёлка ünïcode"])
    }

    func testCommandNameMayContainDigitsUnderscoreAndCapitals() throws {
        XCTAssertEqual(try tokenize("replay_gain_mode auto").name, "replay_gain_mode")
        XCTAssertEqual(try tokenize("pinG").name, "pinG")
    }

    func testLinesNotStartingWithALowerCaseLetterAreNotCommands() {
        for line in ["", " ping", "PING", "1abc", "\"ping\"", "_x"] {
            XCTAssertEqual(failure(line), .notACommand, line)
        }
    }

    func testInvalidCharacterInCommandName() {
        XCTAssertEqual(failure("a-b"), .invalidCommandName)
        XCTAssertEqual(failure("p\u{00E9}ng"), .invalidCommandName)
    }

    func testMissingClosingQuote() {
        XCTAssertEqual(failure(#"status "a"#), .argument(#"Missing closing '"'"#))
        XCTAssertEqual(failure(#"status "a\"#), .argument(#"Missing closing '"'"#))
    }

    func testSpaceRequiredAfterClosingQuote() {
        XCTAssertEqual(failure(#"status "a"b"#), .argument(#"Space expected after closing '"'"#))
    }

    func testQuotesInsideUnquotedWords() {
        XCTAssertEqual(failure("status a'b"), .argument("Invalid unquoted character"))
        XCTAssertEqual(failure("status a\"b"), .argument("Invalid unquoted character"))
        XCTAssertEqual(failure("status 'a'"), .argument("Invalid unquoted character"))
    }

    /// Unlike MPD, whose C strings end at a NUL (so `kill\0junk` ran `kill`), a NUL byte makes
    /// a request malformed.
    func testANULByteMakesTheRequestMalformed() {
        XCTAssertEqual(failure(String(decoding: [0x6B, 0x69, 0x6C, 0x6C, 0, 0x78], as: UTF8.self)), .invalidCommandName)
        XCTAssertEqual(try tokenize(String(decoding: Array("ping ".utf8) + [0, 0x78], as: UTF8.self)).arguments, ["\u{0}x"])
        XCTAssertEqual(Array(Tokenizer.trimmedLine(Array("kill\0".utf8)[...])), Array("kill\0".utf8))
    }

    func testTooManyArguments() {
        let line = "ping" + String(repeating: " a", count: Tokenizer.maximumArguments + 1)
        XCTAssertEqual(failure(line), .tooManyArguments)
        XCTAssertNil(failure("ping" + String(repeating: " a", count: Tokenizer.maximumArguments)))
    }
}
