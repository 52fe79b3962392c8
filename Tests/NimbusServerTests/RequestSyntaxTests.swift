import NimbusHarness
import XCTest

/// The tokenizer and ACK rules as a client meets them over TCP.
final class RequestSyntaxTests: XCTestCase {
    var server: TestServer!

    override func setUpWithError() throws { server = try TestServer() }
    override func tearDown() { server = nil }

    func testPingAndCarriageReturnAndTrailingBlanks() throws {
        let client = try server.connect()
        XCTAssertEqual(try client.request("ping"), ["OK"])
        XCTAssertEqual(try client.request("ping\r"), ["OK"])
        XCTAssertEqual(try client.request("ping \t "), ["OK"])
    }

    func testUnknownCommand() throws {
        let client = try server.connect()
        XCTAssertEqual(try client.request("x123"), [#"ACK [5@0] {} unknown command "x123""#])
        XCTAssertEqual(try client.request("pinG"), [#"ACK [5@0] {} unknown command "pinG""#])
    }

    func testArgumentErrorsKeepTheConnection() throws {
        let client = try server.connect()
        XCTAssertEqual(try client.request(#"ping "a"#), [#"ACK [5@0] {} Missing closing '"'"#])
        XCTAssertEqual(try client.request(#"ping "a"b"#), [#"ACK [5@0] {} Space expected after closing '"'"#])
        XCTAssertEqual(try client.request("ping a'b"), ["ACK [5@0] {} Invalid unquoted character"])
        XCTAssertEqual(try client.request("ping"), ["OK"])
    }

    func testArityMessages() throws {
        let client = try server.connect()
        XCTAssertEqual(try client.request("ping x"), [#"ACK [2@0] {ping} wrong number of arguments for "ping""#])
        XCTAssertEqual(try client.request("password"), [#"ACK [2@0] {password} wrong number of arguments for "password""#])
        XCTAssertEqual(try client.request("sendmessage a"), [#"ACK [2@0] {sendmessage} wrong number of arguments for "sendmessage""#])
    }

    func testLinesThatAreNotCommandsCloseWithoutReply() throws {
        for line in ["", " ping", "PING", "1abc", "\u{1}x"] {
            let client = try server.connect()
            XCTAssertEqual(try client.sendAndReadUntilClosed(line + "\n"), "", "line \(line.debugDescription)")
        }
    }

    func testMalformedLineDiscardsTheResponsesOfItsBatch() throws {
        let client = try server.connect()
        XCTAssertEqual(try client.sendAndReadUntilClosed("ping\n\nping\n"), "")
    }

    func testInvalidCommandNameIsAnsweredThenClosed() throws {
        let client = try server.connect()
        XCTAssertEqual(try client.sendAndReadUntilClosed("ping\na-b\nping\n"), "OK\nACK [5@0] {} Invalid word character\n")
    }

    /// The longest line MPD takes is 8 KiB with its newline; a longer one is dropped and
    /// answered (MPD closes the connection: Nimbus differs on purpose) and the next line runs.
    func testLineLimitIsEightKiBIncludingTheNewline() throws {
        let client = try server.connect()
        let longest = "ping " + String(repeating: "x", count: 8191 - 5)
        XCTAssertEqual(try client.request(longest), [#"ACK [2@0] {ping} wrong number of arguments for "ping""#])
        XCTAssertEqual(try client.request(longest + "x"), ["ACK [2@0] {ping} Line too long"])
        XCTAssertEqual(try client.request("ping"), ["OK"])
    }

    func testCloseFlushesEarlierResponses() throws {
        let client = try server.connect()
        XCTAssertEqual(try client.sendAndReadUntilClosed("ping\nclose\nping\n"), "OK\n")
        let another = try server.connect()
        XCTAssertEqual(try another.sendAndReadUntilClosed("close extra args\n"), "")
    }

    func testPipelinedRequestsAreAnsweredInOrder() throws {
        let client = try server.connect()
        try client.send("ping\nfoo\nping\n")
        XCTAssertEqual(try client.readResponse(), ["OK"])
        XCTAssertEqual(try client.readResponse(), [#"ACK [5@0] {} unknown command "foo""#])
        XCTAssertEqual(try client.readResponse(), ["OK"])
    }

    func testRequestSplitAcrossPackets() throws {
        let client = try server.connect()
        try client.send("pi")
        XCTAssertTrue(try client.isQuiet(for: 0.05))
        try client.send("ng\n")
        XCTAssertEqual(try client.readResponse(), ["OK"])
    }

    func testClientHalfCloseStillGetsItsAnswers() throws {
        let client = try server.connect()
        try client.send("ping\nping\n")
        shutdown(client.fd, Int32(SHUT_WR))
        XCTAssertEqual(try client.readUntilClosed(), "OK\nOK\n")
    }
}
