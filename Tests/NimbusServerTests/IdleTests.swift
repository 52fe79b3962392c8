import NimbusModel
import NimbusHarness
import XCTest

final class IdleTests: XCTestCase {
    var server: TestServer!

    override func setUpWithError() throws { server = try TestServer { $0.connectionTimeout = 1 } }
    override func tearDown() { server = nil }

    func testIdleWakesOnAnEventOfItsSubsystem() throws {
        let client = try server.connect()
        try client.send("idle player mixer\n")
        XCTAssertTrue(try client.isQuiet(for: 0.05))
        try server.emit(.database)
        XCTAssertTrue(try client.isQuiet(for: 0.05))
        try server.emit(.mixer)
        XCTAssertEqual(try client.readResponse(), ["changed: mixer", "OK"])
    }

    func testIdleWithoutArgumentsListensToAllFourteen() throws {
        let client = try server.connect()
        try client.send("idle\n")
        try server.emit(.all)
        XCTAssertEqual(try client.readResponse(), IdleEvents.names.map { "changed: \($0)" } + ["OK"])
    }

    func testBurstCoalescesIntoOneAnswer() throws {
        let client = try server.connect()
        try client.send("idle\n")
        try server.emit(.playlist, .playlist, .playlist, [.player, .playlist])
        XCTAssertEqual(try client.readResponse(), ["changed: playlist", "changed: player", "OK"])
        XCTAssertTrue(try client.isQuiet(for: 0.05))
    }

    func testPendingEventsAnswerTheNextIdleImmediately() throws {
        let client = try server.connect()
        try server.emit([.options, .output])
        XCTAssertEqual(try client.request("ping"), ["OK"])
        XCTAssertEqual(try client.request("idle options"), ["changed: options", "OK"])
        // Only the subscribed flag was consumed (MPD 0.24 semantics): output is still pending.
        XCTAssertEqual(try client.request("idle"), ["changed: output", "OK"])
    }

    func testSubsystemNamesAreCaseInsensitiveAndUnknownOnesRejected() throws {
        let client = try server.connect()
        XCTAssertEqual(try client.request("idle bogus"), ["ACK [2@0] {idle} Unrecognized idle event: bogus"])
        try client.send("idle PLAYER\n")
        try server.emit(.player)
        XCTAssertEqual(try client.readResponse(), ["changed: player", "OK"])
    }

    func testNoidleEndsIdleWithABareOK() throws {
        let client = try server.connect()
        try client.send("idle\n")
        XCTAssertTrue(try client.isQuiet(for: 0.05))
        XCTAssertEqual(try client.request("noidle"), ["OK"])
        XCTAssertEqual(try client.request("ping"), ["OK"])
    }

    func testStrayNoidleIsSilentlyIgnored() throws {
        let client = try server.connect()
        try client.send("idle player\n")
        try server.emit(.player)
        XCTAssertEqual(try client.readResponse(), ["changed: player", "OK"])
        try client.send("noidle\n")
        XCTAssertEqual(try client.request("status").last, "OK")
        try client.send("noidle\nnoidle\n")
        XCTAssertTrue(try client.isQuiet(for: 0.05))
        XCTAssertEqual(try client.request("ping"), ["OK"])
    }

    func testAnyOtherCommandDuringIdleClosesTheConnection() throws {
        for line in ["ping", "noidle x", "PING", ""] {
            let client = try server.connect()
            try client.send("idle\n")
            XCTAssertEqual(try client.sendAndReadUntilClosed(line + "\n"), "", line)
        }
    }

    func testIdleIsExemptFromTheConnectionTimeout() throws {
        let idler = try server.connect()
        let silent = try server.connect()
        try idler.send("idle\n")
        XCTAssertEqual(try silent.readUntilClosed(), "", "a silent client is dropped after the timeout")
        XCTAssertTrue(try idler.isQuiet(for: 1.2))
        XCTAssertEqual(try idler.request("noidle"), ["OK"])
        XCTAssertEqual(try idler.readUntilClosed(), "", "after leaving idle the timeout applies again")
    }

    func testMessagesWakeOnlyTheSubscribedClient() throws {
        let listener = try server.connect()
        let other = try server.connect()
        let sender = try server.connect()
        XCTAssertEqual(try listener.request("subscribe chat"), ["OK"])
        try listener.send("idle message\n")
        try other.send("idle message\n")
        XCTAssertEqual(try sender.request("sendmessage chat hello"), ["OK"])
        XCTAssertEqual(try listener.readResponse(), ["changed: message", "OK"])
        XCTAssertTrue(try other.isQuiet(for: 0.05))
        XCTAssertEqual(try listener.request("readmessages"), ["channel: chat", "message: hello", "OK"])
    }

    /// MPD 0.24: the queue, player, options and mixer of a partition wake only its own
    /// clients; switching partitions marks those subsystems changed (without waking), so the
    /// next `idle` makes the client reload its state.
    func testPartitionEventsWakeOnlyThatPartitionsClients() throws {
        let server = try TestServer(musicDirectory: try Fixtures.library())
        let other = try server.connect(), player = try server.connect()
        XCTAssertEqual(try other.request("newpartition two"), ["OK"])
        XCTAssertEqual(try other.request("partition two"), ["OK"])
        XCTAssertEqual(
            try other.request("idle"),
            ["changed: playlist", "changed: player", "changed: mixer", "changed: output", "changed: options", "changed: partition",
             "OK"])
        try other.send("idle\n")
        for command in ["add untagged.wav", "play", "random 1", "setvol 40", "pause 1"] {
            XCTAssertEqual(try player.request(command), ["OK"], command)
        }
        XCTAssertTrue(try other.isQuiet(for: 0.3), "another partition's player woke the client")
        XCTAssertEqual(try player.request("save fromdefault"), ["OK"])
        XCTAssertEqual(try other.readResponse(), ["changed: stored_playlist", "OK"], "global events reach every partition")
    }

    /// The mixer wakes only when a level was set (MPD: `setvol` always, `volume` only on a
    /// change) or an output with a mixer is switched; reading the volume never does.
    func testOnlyRealMixerChangesWakeIdleMixer() throws {
        let client = try server.connect(), other = try server.connect()
        try client.send("idle mixer\n")
        for command in ["status", "getvol", "volume 0", "outputs"] {
            XCTAssertEqual(try other.request(command).last, "OK", command)
        }
        XCTAssertTrue(try client.isQuiet(for: 0.2), "reading the volume woke idle mixer")
        XCTAssertEqual(try other.request("volume -5"), ["OK"])
        XCTAssertEqual(try client.readResponse(), ["changed: mixer", "OK"])
        try client.send("idle mixer\n")
        XCTAssertEqual(try other.request("setvol 95"), ["OK"])
        XCTAssertEqual(try client.readResponse(), ["changed: mixer", "OK"], "setvol announces even an unchanged level")
        try client.send("idle mixer output\n")
        XCTAssertEqual(try other.request("enableoutput 0"), ["OK"])
        XCTAssertTrue(try client.isQuiet(for: 0.2), "enabling an enabled output changed nothing")
        XCTAssertEqual(try other.request("disableoutput 0"), ["OK"])
        XCTAssertEqual(try client.readResponse(), ["changed: mixer", "changed: output", "OK"])
    }
}
