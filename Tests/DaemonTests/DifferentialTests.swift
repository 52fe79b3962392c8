import Foundation
import NimbusHarness
import XCTest

/// The same protocol scripts against Debian's MPD 0.23 and nimbusd; transcripts must match.
final class DifferentialTests: XCTestCase {
    private func compare(_ scripts: [ProtocolScript], config: String = "", file: StaticString = #filePath, line: UInt = #line) throws {
        try DifferentialHarness(config: config).compare(scripts, file: file, line: line)
    }

    func testTokenizerAndErrors() throws {
        try compare([
            .exchange(
                "tokens",
                [
                    "ping", "ping\r", "ping  \t", "ping x", "foo", "x123", "pinG", #"ping "a"#, #"ping "a"b"#, "ping a'b",
                    #"ping a"b"#, #"status "x""#, "status x y", #"password "a\"b""#, "sendmessage", "subscribe a b c",
                    "idle bogus", "noidle x", "command_list_end", "binarylimit abc", "binarylimit 10",
                    "binarylimit 99999999999999", "binarylimit -1", "binarylimit +64", "binarylimit 8400896",
                    "binarylimit 8400897",
                ]),
            ProtocolScript(name: "empty line", steps: [.connect(0), .send(0, "ping\n\nping\n"), .closed(0)]),
            ProtocolScript(name: "leading space", steps: [.connect(0), .send(0, " ping\n"), .closed(0)]),
            ProtocolScript(name: "upper case", steps: [.connect(0), .send(0, "PING\n"), .closed(0)]),
            ProtocolScript(name: "digit", steps: [.connect(0), .send(0, "1abc\n"), .closed(0)]),
            ProtocolScript(name: "word char", steps: [.connect(0), .send(0, "ping\na-b\nping\n"), .closed(0)]),
            ProtocolScript(name: "close", steps: [.connect(0), .send(0, "ping\nclose\nping\n"), .closed(0)]),
            ProtocolScript(name: "close args", steps: [.connect(0), .send(0, "close x\n"), .closed(0)]),
            ProtocolScript(
                name: "long line",
                steps: [
                    .connect(0), .send(0, "ping " + String(repeating: "x", count: 8186) + "\n"), .responses(0, count: 1),
                    .send(0, "ping " + String(repeating: "x", count: 8187) + "\n"), .closed(0),
                ]),
        ])
    }

    func testCommandLists() throws {
        try compare([
            .exchange(
                "lists",
                [
                    "command_list_begin\nping\nfoo\nping\ncommand_list_end",
                    "command_list_ok_begin\nping\nstatus x\nping\ncommand_list_end",
                    "command_list_ok_begin\nping\nping\ncommand_list_end",
                    "command_list_begin\ncommand_list_end", "command_list_ok_begin\ncommand_list_end",
                    "command_list_begin\ncommand_list_begin\ncommand_list_end",
                    "command_list_ok_begin\nping\n\"x\ncommand_list_end",
                    "command_list_ok_begin\nstatus\nstats\ncommand_list_end",
                ]),
            ProtocolScript(
                name: "list then stray end",
                steps: [.connect(0), .send(0, "command_list_begin x\nping\ncommand_list_end\n"), .responses(0, count: 3)]),
            // A bare idle or noidle in a list closes the connection in MPD 0.24 (CommandListTests).
            ProtocolScript(
                name: "idle with events in list",
                steps: [
                    .connect(0), .send(0, "command_list_ok_begin\nping\nidle player\nping\ncommand_list_end\n"), .quiet(0),
                    .send(0, "noidle\nping\n"), .responses(0, count: 2),
                ]),
            ProtocolScript(
                name: "bad line in list",
                steps: [.connect(0), .send(0, "command_list_ok_begin\nping\n1bad\nping\ncommand_list_end\nping\n"), .closed(0)]),
            ProtocolScript(
                name: "word char in list",
                steps: [.connect(0), .send(0, "command_list_ok_begin\nping\na-b\nping\ncommand_list_end\n"), .closed(0)]),
            ProtocolScript(
                name: "close in list",
                steps: [.connect(0), .send(0, "command_list_ok_begin\nping\nclose\nping\ncommand_list_end\n"), .closed(0)]),
        ])
    }

    func testIdleAndChannels() throws {
        try compare([
            ProtocolScript(
                name: "idle basics",
                steps: [
                    .connect(0), .send(0, "idle\n"), .quiet(0), .send(0, "noidle\n"), .responses(0, count: 1),
                    .send(0, "noidle\nnoidle\nping\n"), .responses(0, count: 1), .send(0, "idle PLAYER mixer\n"), .quiet(0),
                    .send(0, "noidle\n"), .responses(0, count: 1), .send(0, "idle\nping\n"), .closed(0),
                ]),
            ProtocolScript(
                name: "channels",
                steps: [
                    .connect(0), .connect(1), .send(1, "idle\n"), .quiet(1),
                    .send(0, "subscribe \"x y\"\nsubscribe a.b:c-d_e\nsubscribe a.b:c-d_e\nchannels\nsendmessage nochan hi\n"),
                    .responses(0, count: 5), .responses(1, count: 1),
                    .send(1, "subscribe a.b:c-d_e\nidle message\n"), .responses(1, count: 1), .quiet(1),
                    .send(0, "sendmessage a.b:c-d_e hello\nsendmessage a.b:c-d_e world\n"), .responses(0, count: 2),
                    .responses(1, count: 1), .send(1, "readmessages\nreadmessages\nchannels\n"), .responses(1, count: 3),
                    .send(0, "unsubscribe nope\nunsubscribe a.b:c-d_e\nchannels\n"), .responses(0, count: 3),
                    .send(1, "idle subscription\n"), .responses(1, count: 1),
                ]),
        ])
    }

    func testTagTypesStatusAndStats() throws {
        try compare([
            .exchange(
                "tagtypes",
                [
                    "tagtypes", "tagtypes \"clear\"", "tagtypes", "tagtypes enable Artist album COMMENT", "tagtypes",
                    "tagtypes disable artist", "tagtypes", "tagtypes all", "tagtypes", "tagtypes clear x", "tagtypes enable",
                    "tagtypes disable nosuch", "tagtypes Enable artist",
                ]),
            .exchange("status", ["status", "stats"]),
        ])
    }

    func testPasswordsAndLimits() throws {
        try compare(
            [
                .exchange(
                    "permissions",
                    [
                        "commands", "status", "idle", "password wrong", "password secret", "status", "sendmessage x y",
                        "password secret extra", "password boss", "config",
                    ]),
                ProtocolScript(
                    name: "list size",
                    steps: [
                        .connect(0), .send(0, "command_list_begin\nping " + String(repeating: "x", count: 1018) + "\ncommand_list_end\n"),
                        .responses(0, count: 1),
                        .send(0, "command_list_begin\nping " + String(repeating: "x", count: 1019) + "\ncommand_list_end\n"),
                        .closed(0),
                    ]),
                ProtocolScript(
                    name: "output buffer",
                    steps: [.connect(0), .send(0, "password boss\n" + String(repeating: "tagtypes\n", count: 900)), .closed(0)]),
            ],
            config: """
                password "secret@read"
                password "boss@read,add,control,admin"
                max_command_list_size "1"
                max_output_buffer_size "1"
                """)
    }
}
