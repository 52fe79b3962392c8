import NimbusHarness
import XCTest

final class CommandListTests: XCTestCase {
    var server: TestServer!

    override func setUpWithError() throws { server = try TestServer { $0.maxCommandListSize = 1024 } }
    override func tearDown() { server = nil }

    func testOKModeSplitsResults() throws {
        let client = try server.connect()
        try client.send("command_list_ok_begin\nping\nstatus\ncommand_list_end\n")
        let response = try client.readResponse()
        XCTAssertEqual(response.first, "list_OK")
        XCTAssertEqual(response.filter { $0 == "list_OK" }.count, 2)
        XCTAssertEqual(response.last, "OK")
        XCTAssertTrue(response.contains("state: stop"))
    }

    func testPlainListAnswersOnce() throws {
        let client = try server.connect()
        try client.send("command_list_begin\nping\nping\ncommand_list_end\n")
        XCTAssertEqual(try client.readResponse(), ["OK"])
    }

    func testFailureStopsTheListAndNamesItsIndex() throws {
        let client = try server.connect()
        try client.send("command_list_ok_begin\nping\nstatus x\nping\ncommand_list_end\nping\n")
        XCTAssertEqual(
            try client.readResponse(), ["list_OK", #"ACK [2@1] {status} wrong number of arguments for "status""#])
        XCTAssertEqual(try client.readResponse(), ["OK"])
        try client.send("command_list_begin\nping\nping\nnosuch\nping\ncommand_list_end\n")
        XCTAssertEqual(try client.readResponse(), [#"ACK [5@2] {} unknown command "nosuch""#])
    }

    func testNothingRunsBeforeTheEnd() throws {
        let client = try server.connect()
        try client.send("command_list_begin\nping\n")
        XCTAssertTrue(try client.isQuiet(for: 0.1))
        try client.send("command_list_end\n")
        XCTAssertEqual(try client.readResponse(), ["OK"])
    }

    func testEmptyNestedAndStrayLists() throws {
        let client = try server.connect()
        XCTAssertEqual(try client.request("command_list_begin\ncommand_list_end"), ["OK"])
        XCTAssertEqual(try client.request("command_list_ok_begin\ncommand_list_end"), ["OK"])
        XCTAssertEqual(
            try client.request("command_list_begin\ncommand_list_begin\ncommand_list_end"),
            [#"ACK [5@0] {} unknown command "command_list_begin""#])
        XCTAssertEqual(try client.request("command_list_end"), [#"ACK [5@0] {} unknown command "command_list_end""#])
        XCTAssertEqual(
            try client.request("command_list_begin x\nping"), [#"ACK [5@0] {} unknown command "command_list_begin""#])
        XCTAssertEqual(try client.readResponse(), ["OK"])
    }

    /// MPD 0.24 closes the connection on a bare `idle` or `noidle` inside a list, before
    /// anything in the list ran.
    func testBareIdleOrNoidleInsideAListClosesTheConnection() throws {
        for word in ["idle", "noidle", "idle  "] {
            let client = try server.connect()
            XCTAssertEqual(try client.sendAndReadUntilClosed("command_list_ok_begin\nping\n\(word)\nping\ncommand_list_end\n"), "", word)
        }
        XCTAssertEqual(try server.connect().request("ping"), ["OK"], "the server goes on")
    }

    func testIdleWithEventsInsideAListEntersIdleAtItsEnd() throws {
        let client = try server.connect()
        try client.send("command_list_ok_begin\nping\nidle player\nping\ncommand_list_end\n")
        XCTAssertEqual(try client.readLine(), "list_OK")
        XCTAssertTrue(try client.isQuiet(for: 0.1))
        XCTAssertEqual(try client.request("noidle"), ["OK"])
        XCTAssertEqual(try client.request("ping"), ["OK"])
    }

    func testMalformedLineInAListClosesWithoutAnyReply() throws {
        let client = try server.connect()
        XCTAssertEqual(try client.sendAndReadUntilClosed("command_list_ok_begin\nping\n1bad\ncommand_list_end\n"), "")
    }

    func testInvalidCommandNameInAListAnswersAndCloses() throws {
        let client = try server.connect()
        XCTAssertEqual(
            try client.sendAndReadUntilClosed("command_list_ok_begin\nping\na-b\nping\ncommand_list_end\n"),
            "list_OK\nACK [5@1] {} Invalid word character\n")
    }

    func testCloseInAListFlushesWhatCameBefore() throws {
        let client = try server.connect()
        XCTAssertEqual(
            try client.sendAndReadUntilClosed("command_list_ok_begin\nping\nclose\nping\ncommand_list_end\n"), "list_OK\n")
    }

    func testSizeLimitCountsEachLinePlusOneByte() throws {
        let fits = "ping " + String(repeating: "x", count: 1023 - 5)
        let client = try server.connect()
        XCTAssertEqual(
            try client.request("command_list_begin\n\(fits)\ncommand_list_end"),
            [#"ACK [2@0] {ping} wrong number of arguments for "ping""#])
        let other = try server.connect()
        XCTAssertEqual(try other.sendAndReadUntilClosed("command_list_begin\n\(fits)x\ncommand_list_end\n"), "")
    }
}
