import Foundation
import NimbusHarness
import XCTest

/// No input may kill the daemon: the lines that once trapped it on a number conversion or an
/// index, seeded mutations of real requests (a bounded count here, more with `make fuzz`), and
/// the other holes fuzzing found.
final class RobustnessTests: XCTestCase {
    private var keep: [AnyObject] = []

    override func tearDown() {
        keep.removeAll()
        super.tearDown()
    }

    /// A daemon with ten one-second songs queued and the fourth playing.
    private func playingDaemon(config: String = "") throws -> ServerProcess {
        let music = TemporaryDirectory("nimbus-robust")
        for index in 0..<10 { try AudioFixtures.writeSineWAV(to: music.file("\(index).wav"), frames: 44_100, frequency: 500) }
        let daemon = try ServerProcess(.nimbus, config: config, musicDirectory: music.path)
        keep += [music, daemon]
        try daemon.waitForDatabase(songs: 10)
        let client = try daemon.connect()
        for index in 0..<10 { XCTAssertEqual(try client.request("add \(index).wav"), ["OK"]) }
        XCTAssertEqual(try client.request("play 3"), ["OK"])
        return daemon
    }

    private func assertAlive(_ daemon: ServerProcess, after what: String, file: StaticString = #filePath, line: UInt = #line) {
        let answer = try? daemon.connect().request("ping")
        XCTAssertEqual(answer, ["OK"], "the daemon died after \(what)\n\(daemon.output.suffix(1500))", file: file, line: line)
    }

    /// Each answered with MPD's ACK or accepted — never a trap. The mixramp values reach the
    /// state file writer, which runs a second after a change.
    func testTheLinesThatOnceTrappedAreAnswered() throws {
        let daemon = try playingDaemon()
        let client = try daemon.connect()
        let expected: [(String, String)] = [
            ("seek 0 1e16", "OK"), ("seek 0 inf", "OK"), ("seek 0 18446744073709551616", "OK"),
            ("seek 0 9223372036854775807", "OK"), ("seekid 1 1e19", "OK"), ("seek 0 nan", "ACK [2@0] {seek} Float expected: nan"),
            ("seek 0 -1", "ACK [2@0] {seek} Negative value not allowed: -1"),
            ("play 3", "OK"), ("seekcur +inf", "OK"), ("play 3", "OK"), ("seekcur 1e39", "OK"), ("play 3", "OK"),
            ("seekcur 9223372036854775808", "OK"), ("play 3", "OK"), ("seekcur -1e30", "OK"),
            ("mixrampdb nan", "OK"), ("mixrampdb -1e30", "OK"), ("mixrampdelay inf", "OK"), ("mixrampdelay 1e30", "OK"),
            ("play 1", "OK"), ("move 0 -2", "ACK [2@0] {move} Bad song index"), ("play 1", "OK"),
            ("move 7 -3", "ACK [2@0] {move} Bad song index"), ("play 3", "OK"), ("move 7 -3", "OK"),
            ("rangeid 1 1e309:", "OK"), ("moveid 1 -100", "ACK [2@0] {moveid} Number too large: 100"),
            ("kill now", "ACK [2@0] {kill} wrong number of arguments for \"kill\""),
            ("tagtypes enable" + String(repeating: " Artist", count: 100), "ACK [2@0] {} Too many arguments"),
            ("update /etc", "ACK [2@0] {update} Malformed path"),
        ]
        for (line, answer) in expected {
            let response = try client.request(line)
            XCTAssertEqual(response.last, answer, line)
            assertAlive(daemon, after: line)
        }
        // The state file is saved a second after a change.
        XCTAssertTrue(waitUntil(timeout: 10) {
            ((try? String(contentsOfFile: daemon.directory.file("state"), encoding: .utf8)) ?? "").contains("mixrampdelay: 1000000")
        })
        assertAlive(daemon, after: "saving the state with non-finite mixramp values")
        let state = try String(contentsOfFile: daemon.directory.file("state"), encoding: .utf8)
        XCTAssertTrue(state.contains("mixrampdb: -1000000015047466219876688855040.000000"), state)
        XCTAssertTrue(state.contains("mixrampdelay: 1000000015047466219876688855040.000000"), state)
        XCTAssertEqual(daemon.stop(), 0, "a clean shutdown")
    }

    /// `kill`, a NUL byte and junk: MPD's C strings end at the NUL and ran `kill`; here the
    /// request is malformed and the daemon stays up.
    func testKillFollowedByANULByteIsRefused() throws {
        let daemon = try playingDaemon()
        let client = try daemon.connect()
        try client.sendBytes(Array("kill".utf8) + [0] + Array("junk\n".utf8))
        XCTAssertEqual(try client.readResponse().last, "ACK [5@0] {} Invalid word character")
        assertAlive(daemon, after: "kill\\0junk")
    }

    /// Seeded mutations of real requests, a batch per connection, the daemon pinged after each.
    /// `NIMBUS_FUZZ_LINES` (set by `make fuzz`) raises the count.
    func testMutatedRequestsNeverKillTheDaemon() throws {
        let lines = Int(ProcessInfo.processInfo.environment["NIMBUS_FUZZ_LINES"] ?? "") ?? 3000
        let seed = UInt64(ProcessInfo.processInfo.environment["NIMBUS_FUZZ_SEED"] ?? "") ?? 20_261_201
        let daemon = try playingDaemon(config: "connection_timeout \"5\"")
        var random = SeededRandom(seed: seed)
        var sent = 0
        var connections = 0
        while sent < lines {
            connections += 1
            let client = try daemon.connect()
            for _ in 0..<200 {
                let line = ProtocolMutations.mutate(ProtocolMutations.corpus.randomElement(using: &random)!, using: &random)
                sent += 1
                guard (try? client.sendBytes(line + [0x0A])) != nil else { break }
            }
            _ = try? client.send("ping\n")
            _ = try? client.readUntilClosedOrQuiet(seconds: 0.3)
            assertAlive(daemon, after: "\(sent) mutated lines (seed \(seed))")
            if (try? daemon.connect().request("ping")) != ["OK"] { break }
        }
        // Most batches run to their end: the lines reached the commands.
        XCTAssertLessThan(connections, lines / 40, "nearly every batch was cut short")
    }

    /// A line that never ends is silence: clients trickling a byte a second are dropped at
    /// `connection_timeout` instead of holding every `max_connections` slot.
    func testATricklingClientIsDroppedAtTheTimeout() throws {
        let daemon = try playingDaemon(config: "connection_timeout \"2\"\nlog_level \"info\"")
        let client = try daemon.connect()
        var closed = false
        for _ in 0..<120 {
            // The server never answers half a line: anything readable is it closing.
            if (try? client.send("s")) == nil || (try? client.isQuiet(for: 0.5)) != true {
                closed = true
                break
            }
        }
        XCTAssertTrue(closed, "a client sending one byte of a line at a time was never dropped")
        // Dropped for its timeout (which the trickle does not reset), as the log says.
        XCTAssertTrue(waitUntil { daemon.log.range(of: #"\[127\.0\.0\.1:\d+\] timeout"#, options: .regularExpression) != nil }, daemon.log)
    }

    /// Credentials in a queued URL never reach `status` or the log.
    func testCredentialsInAURLAreNeverShown() throws {
        let daemon = try playingDaemon()
        let client = try daemon.connect()
        XCTAssertEqual(try client.request("clear"), ["OK"])
        XCTAssertEqual(try client.request("add http://user:PASSWORD99@127.0.0.1:9/song.mp3"), ["OK"])
        XCTAssertEqual(try client.request("play"), ["OK"])
        XCTAssertTrue(waitUntil(timeout: 20) { (try? client.request("status"))?.contains { $0.hasPrefix("error: ") } == true })
        let status = try client.request("status").joined(separator: "\n")
        XCTAssertFalse(status.contains("PASSWORD99"), status)
        XCTAssertTrue(status.contains("http://127.0.0.1:9/song.mp3"), status)
        XCTAssertFalse(daemon.log.contains("PASSWORD99"), daemon.log)
    }

    /// After three wrong passwords each answer waits longer, and the tenth closes the
    /// connection; the right password is never slowed down.
    func testPasswordGuessingIsSlowedDownThenCutOff() throws {
        let daemon = try playingDaemon(
            config: "password \"right@read,add,control,admin\"\ndefault_permissions \"read,add,control,admin\"")
        let fast = try daemon.connect()
        for _ in 0..<3 { XCTAssertEqual(try fast.request("password nope"), ["ACK [3@0] {password} incorrect password"]) }
        let started = Date()
        XCTAssertEqual(try fast.request("password nope"), ["ACK [3@0] {password} incorrect password"])
        XCTAssertEqual(try fast.request("password nope"), ["ACK [3@0] {password} incorrect password"])
        XCTAssertGreaterThan(Date().timeIntervalSince(started), 0.7, "the fourth and fifth answers come later")
        let guesser = try LineClient(daemon.endpoint, timeout: 60)
        _ = try guesser.readLine()
        var answers = 0
        while (try? guesser.request("password nope")) != nil { answers += 1 }
        XCTAssertEqual(answers, 10, "the tenth wrong password is answered, then the connection closes")
        XCTAssertTrue(daemon.log.range(of: #"\[127\.0\.0\.1:\d+\] 10 wrong passwords; closing"#, options: .regularExpression) != nil, daemon.log)
        // While another connection's guess waits two seconds for its answer, the right
        // password on this one is answered: the slowing belongs to the guesser alone.
        let guesser2 = try LineClient(daemon.endpoint, timeout: 60)
        _ = try guesser2.readLine()
        for _ in 0..<7 { _ = try guesser2.request("password nope") }
        try guesser2.send("password nope\n")
        let owner = try daemon.connect()
        XCTAssertEqual(try owner.request("password right"), ["OK"])
        XCTAssertTrue(try guesser2.isQuiet(for: 0), "the owner was answered before the guesser's delayed answer")
        XCTAssertEqual(try guesser2.readLine(), "ACK [3@0] {password} incorrect password")
    }
}
