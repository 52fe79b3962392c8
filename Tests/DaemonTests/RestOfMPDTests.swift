import Foundation
import NimbusHarness
import XCTest

/// Stickers, partitions, mounts, neighbors and the complete command list, against MPD 0.23.
final class RestOfMPDTests: XCTestCase {
    /// Three outputs so that partitions have something to move.
    static let outputs = """
        audio_output {
            type "null"
            name "kitchen"
            mixer_type "software"
        }
        audio_output {
            type "null"
            name "garden"
        }
        """

    private func harness() throws -> DifferentialHarness {
        DifferentialHarness(
            config: Self.outputs, musicDirectory: try Fixtures.library(), songs: LibraryDifferentialTests.fixtureSongs,
            mask: LibraryDifferentialTests.maskDecoderDifferences)
    }

    func testStickers() throws {
        let dawn = "\"Alpha Band/First Light/01 - Dawn.flac\""
        let noon = "\"Alpha Band/First Light/02 - Noon.mp3\""
        try harness().compare([
            .exchange(
                "stickers",
                [
                    "sticker set song \(dawn) rating 5", "sticker set song \(dawn) rating 4", "sticker set song \(dawn) played yes",
                    "sticker set song \(noon) rating 10", "sticker get song \(dawn) rating",
                    "sticker get song nosuch.mp3 rating", "sticker set song nosuch.mp3 rating 1", "sticker list song \(dawn)",
                    "sticker list song nosuch.mp3", "sticker list song untagged.wav", "sticker find song \"\" rating",
                    "sticker find song \"Alpha Band\" rating", "sticker find song \"Alpha Band\" rating = 4",
                    "sticker find song \"Alpha Band\" rating < 5", "sticker find song \"Alpha Band\" rating > 4",
                    "sticker find song nosuch rating",
                    "sticker delete song \(dawn) played",
                    "sticker delete song \(dawn)", "sticker delete song \(dawn)",
                    "sticker list song \(dawn)", "sticker foo song \(dawn)", "sticker",
                    "sticker get song", "sticker set song \(dawn) \"a b\" \"v=1\"", "sticker get song \(dawn) \"a b\"",
                    "sticker list song \(dawn)", "sticker find song \"\" \"a b\"",
                    "sticker set song \(dawn) rating", "sticker get song \(dawn) rating extra",
                ]),
            ProtocolScript(
                name: "idle sticker",
                steps: [
                    .connect(0), .connect(1), .send(0, "idle sticker\n"), .quiet(0),
                    .send(1, "sticker set song untagged.wav x 1\n"), .responses(1, count: 1), .responses(0, count: 1),
                ]),
        ])
    }

    func testPartitions() throws {
        try harness().compare([
            .exchange(
                "partitions",
                [
                    "listpartitions", "newpartition p2", "newpartition p2", "newpartition \"\"", "newpartition \"a b\"",
                    "newpartition a/b", "newpartition x-y_Z9", "listpartitions", "partition p2", "status", "outputs",
                    "moveoutput kitchen", "outputs", "moveoutput nosuch", "setvol 30", "getvol", "add untagged.wav",
                    "playlist", "status", "partition default", "outputs", "playlist", "enableoutput 1", "outputs",
                    "moveoutput kitchen", "outputs", "partition p2", "outputs", "partition default", "delpartition p2",
                    "delpartition p2", "delpartition default", "delpartition nosuch", "partition nosuch",
                    "delpartition x-y_Z9", "listpartitions",
                ]),
            ProtocolScript(
                name: "partition clients and idle",
                steps: [
                    .connect(0), .connect(1), .send(0, "newpartition solo\n"), .responses(0, count: 1),
                    .send(1, "partition solo\n"), .responses(1, count: 1), .send(0, "delpartition solo\n"),
                    .responses(0, count: 1), .send(0, "idle partition\n"), .quiet(0), .send(1, "newpartition other\n"),
                    .responses(1, count: 1), .responses(0, count: 1), .send(0, "idle playlist\n"), .quiet(0),
                    .send(1, "add untagged.wav\n"), .responses(1, count: 1), .quiet(0), .send(0, "noidle\n"),
                    .responses(0, count: 1),
                ]),
        ])
    }

    func testMountsAndNeighbors() throws {
        try harness().compare([
            .exchange(
                "mounts",
                [
                    "listmounts", "mount \"\" http://127.0.0.1:9/", "mount foo /tmp", "unmount foo", "unmount \"\"",
                    "listneighbors", "mount foo", "unmount",
                ])
        ])
    }

    /// Every command MPD 0.23 lists for an admin is listed by Nimbus, getfingerprint included,
    /// and besides them exactly the commands MPD 0.24 added and Nimbus's own.
    func testCommandsMatchMPD() throws {
        try XCTSkipUnless(ServerProcess.mpdAvailable, "Debian's mpd is not installed (scripts/install-deps)")
        let reference = try ServerProcess(.mpd, config: Self.outputs)
        let nimbus = try ServerProcess(.nimbus, config: Self.outputs)
        func names(_ daemon: ServerProcess, _ command: String) throws -> [String] {
            try daemon.connect().request(command).dropLast().map { String($0.dropFirst("command: ".count)) }
        }
        let theirs = try names(reference, "commands")
        let ours = try names(nimbus, "commands")
        let added = DifferentialHarness.newCommands + DifferentialHarness.nimbusCommands
        XCTAssertEqual(ours.filter { !added.contains($0) }, theirs)
        XCTAssertTrue(theirs.contains("getfingerprint"), "Debian's MPD is built with libchromaprint")
        XCTAssertEqual(Set(ours).subtracting(theirs), Set(added))
        XCTAssertTrue(theirs.contains("sticker"), "MPD was configured with a sticker database")
        XCTAssertEqual(try names(nimbus, "notcommands"), try names(reference, "notcommands"))
    }

    func testStickersAndPartitionsSurviveRestartAndKillNine() throws {
        let daemon = try ServerProcess(.nimbus, config: Self.outputs, musicDirectory: try Fixtures.library())
        try daemon.waitForDatabase(songs: LibraryDifferentialTests.fixtureSongs)
        var client = try daemon.connect()
        for command in [
            "sticker set song untagged.wav rating 3", "newpartition radio", "partition radio", "moveoutput garden",
            "add untagged.wav", "repeat 1",
        ] {
            XCTAssertEqual(try client.request(command), ["OK"], command)
        }
        XCTAssertEqual(daemon.stop(), 0)
        try daemon.restart()
        client = try daemon.connect()
        XCTAssertEqual(try client.request("sticker get song untagged.wav rating"), ["sticker: rating=3", "OK"])
        XCTAssertEqual(try client.request("listpartitions"), ["partition: default", "partition: radio", "OK"])
        XCTAssertEqual(try client.request("partition radio"), ["OK"])
        XCTAssertEqual(try client.request("playlist"), ["0:file: untagged.wav", "OK"])
        XCTAssertTrue(try client.request("status").contains("repeat: 1"))
        XCTAssertEqual(try client.request("outputs"), ["outputid: 0", "outputname: garden", "plugin: null", "outputenabled: 1", "OK"])
        XCTAssertEqual(try client.request("partition default"), ["OK"])
        XCTAssertTrue(try client.request("outputs").contains("plugin: dummy"))

        // A sticker set just before a kill -9 is there afterwards (SQLite's journal).
        XCTAssertEqual(try client.request("sticker set song untagged.wav rating 4"), ["OK"])
        daemon.stop(signal: SIGKILL)
        try daemon.restart()
        client = try daemon.connect()
        XCTAssertEqual(try client.request("sticker get song untagged.wav rating"), ["sticker: rating=4", "OK"])
        XCTAssertEqual(try client.request("listpartitions"), ["partition: default", "partition: radio", "OK"])
    }

    func testMpcStickersAndMessages() throws {
        try XCTSkipUnless(FileManager.default.fileExists(atPath: "/usr/bin/mpc"), "mpc not installed")
        let daemon = try ServerProcess(.nimbus, musicDirectory: try Fixtures.library())
        try daemon.waitForDatabase(songs: LibraryDifferentialTests.fixtureSongs)
        @discardableResult func mpc(_ arguments: [String]) throws -> String {
            try runTool("mpc", ["-h", "127.0.0.1", "-p", String(daemon.port)] + arguments)
        }
        try mpc(["sticker", "untagged.wav", "set", "rating", "7"])
        XCTAssertEqual(try mpc(["sticker", "untagged.wav", "get", "rating"]), "rating=7\n")
        XCTAssertEqual(try mpc(["sticker", "untagged.wav", "list"]), "rating=7\n")
        XCTAssertEqual(try mpc(["sticker", "", "find", "rating"]), "untagged.wav: rating=7\n")
        try mpc(["sticker", "untagged.wav", "delete", "rating"])
        XCTAssertEqual(try mpc(["sticker", "untagged.wav", "list"]), "")

        // Two clients exchange messages: one waits, the other sends.
        let waiter = Process()
        waiter.executableURL = URL(fileURLWithPath: "/usr/bin/mpc")
        waiter.arguments = ["-h", "127.0.0.1", "-p", String(daemon.port), "waitmessage", "chat"]
        let output = Pipe()
        waiter.standardOutput = output
        try waiter.run()
        XCTAssertTrue(waitUntil { (try? mpc(["channels"])) == "chat\n" })
        try mpc(["sendmessage", "chat", "hello there"])
        waiter.waitUntilExit()
        XCTAssertEqual(String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self), "hello there\n")
        let client = try daemon.connect()
        XCTAssertEqual(try client.request("subscribe chat"), ["OK"])
        try mpc(["sendmessage", "chat", "queued"])
        XCTAssertEqual(try client.request("readmessages"), ["channel: chat", "message: queued", "OK"])
    }
}
