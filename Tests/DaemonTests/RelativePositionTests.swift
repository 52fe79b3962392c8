import Foundation
import NimbusHarness
import XCTest

/// `move`, `moveid`, `add` and `addid` with `+N`/`-N` against the answers MPD 0.24.13 gave
/// (Recorded/relative-positions-mpd-0.24.13.txt, 288 cases before, after and around the
/// current song). Where 0.24.13 crashes (a `-N` reaching before the first song wraps its
/// unsigned arithmetic) Nimbus answers an ACK and keeps the queue; where 0.24.13 leaves
/// `song:` pointing at another song after a move, Nimbus keeps the current song current.
final class RelativePositionTests: XCTestCase {
    private static let names = ["Mp3", "Cafe", "Dawn", "Four", "Five", "Six"]

    private struct Case {
        let current: Int, command: String, argument: String, destination: String, answer: String
    }

    private func recorded() throws -> [Case] {
        let path = Fixtures.repositoryRoot + "/Tests/DaemonTests/Recorded/relative-positions-mpd-0.24.13.txt"
        return try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").compactMap { line in
            guard !line.hasPrefix("#"), let bar = line.range(of: " | ") else { return nil }
            let words = line[..<bar.lowerBound].split(separator: " ").map(String.init)
            return Case(current: Int(words[0])!, command: words[1], argument: words[2], destination: words[3], answer: String(line[bar.upperBound...]))
        }
    }

    private func files(_ client: LineClient) throws -> [String] {
        try client.request("playlistinfo").filter { $0.hasPrefix("file: ") }.map { String($0.dropFirst(6).dropLast(4)) }
    }

    func testRelativePositionsAnswerAsMPD0_24() throws {
        let music = TemporaryDirectory()
        for name in Self.names { try AudioFixtures.writeRampWAV(to: music.file("\(name).wav"), frames: 441_000) }
        let daemon = try ServerProcess(.nimbus, musicDirectory: music.path)
        try daemon.waitForDatabase(songs: Self.names.count)
        let client = try daemon.connect()
        let cases = try recorded()
        XCTAssertEqual(cases.count, 288, "the recording was not read")
        for test in cases {
            XCTAssertEqual(try client.request("clear"), ["OK"])
            for name in Self.names { XCTAssertEqual(try client.request("add \(name).wav"), ["OK"]) }
            for line in ["play \(test.current)", "pause 1"] { XCTAssertEqual(try client.request(line), ["OK"]) }
            let ids = try client.request("playlistinfo").filter { $0.hasPrefix("Id: ") }.map { String($0.dropFirst(4)) }
            let argument = test.command == "moveid" ? ids[Int(test.argument)!] : test.argument
            let line = "\(test.command) \(argument) \(test.destination)"
            let answer = try client.request(line)
            let after = try files(client)
            switch test.answer {
            case "CRASH":
                XCTAssertTrue(answer.last?.hasPrefix("ACK [2@0] {\(test.command)} ") == true, "\(line) with song \(test.current): \(answer)")
                XCTAssertEqual(after, Self.names, line)
            case let ack where ack.hasPrefix("ACK"):
                XCTAssertEqual(answer, [ack], "\(line) with song \(test.current)")
                XCTAssertEqual(after, Self.names, line)
            default:
                XCTAssertEqual(answer.last, "OK", "\(line) with song \(test.current)")
                XCTAssertEqual(after.joined(separator: " "), test.answer, "\(line) with song \(test.current)")
                let current = try client.request("currentsong").first { $0.hasPrefix("file: ") }
                XCTAssertEqual(current, "file: \(Self.names[test.current]).wav", "\(line): the current song stays current")
            }
        }
    }
}
