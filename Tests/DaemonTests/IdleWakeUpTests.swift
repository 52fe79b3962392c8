import Foundation
import NimbusHarness
import XCTest

/// How many times a client idling on `player` is woken by one command during playback,
/// counted on Debian's MPD and on nimbusd side by side. Clients such as myMPD and mpdscribble
/// act on every wake-up (a skip counted, a sticker written), so one change must be one wake-up.
///
/// The count ends at a marker: once the command's effect shows in `status` (the song plays
/// again, or playback stopped), a second client sends a message to a channel the idling client
/// subscribed to, and the idler's `message` wake-up closes the window — a wait on a condition,
/// not on a delay.
final class IdleWakeUpTests: XCTestCase {
    private struct Daemon {
        let name: String
        let process: ServerProcess
        let control: LineClient
    }

    private func start(_ kind: ServerProcess.Kind, music: TemporaryDirectory) throws -> Daemon {
        let process = try ServerProcess(kind, musicDirectory: music.path)
        try process.waitForDatabase(songs: 4)
        return Daemon(name: kind == .mpd ? "MPD" : "Nimbus", process: process, control: try process.connect())
    }

    private func status(_ client: LineClient) -> [String: String] {
        var fields: [String: String] = [:]
        for line in (try? client.request("status")) ?? [] {
            guard let colon = line.firstIndex(of: ":") else { continue }
            fields[String(line[..<colon])] = String(line[line.index(colon, offsetBy: 2)...])
        }
        return fields
    }

    /// Plays `setup` on the daemon, waits until the song is heard, runs `command`, waits for
    /// `settled`, and returns how many of the idler's wake-ups named `player` and `playlist`.
    private func wakeUps(
        _ daemon: Daemon, setup: [String], command: String, settled: @escaping ([String: String]) -> Bool
    ) throws -> (player: Int, playlist: Int) {
        for line in ["clear"] + setup { XCTAssertEqual(try daemon.control.request(line), ["OK"], "\(line) on \(daemon.name)") }
        if setup.last?.hasPrefix("play") == true {
            XCTAssertTrue(
                waitUntil(timeout: 20) { Double(self.status(daemon.control)["elapsed"] ?? "") ?? 0 > 0.3 },
                "\(daemon.name) never played")
        }
        let idler = try daemon.process.connect(timeout: 20)
        XCTAssertEqual(try idler.request("subscribe marker"), ["OK"])
        // Events from the setup are read off before counting: `noidle` ends the idle at once.
        try idler.send("idle player playlist message\nnoidle\n")
        _ = try idler.readResponse()

        // The idler reads on its own thread, back in `idle` right after each wake-up, as a
        // client that acts on events is.
        let counted = Counted()
        let handoff = Handoff(idler)
        let reader = Thread {
            let idler = handoff.value
            while (try? idler.send("idle player playlist message\n")) != nil {
                counted.sent()
                guard let events = try? idler.readResponse() else { break }
                counted.add(events)
                if events.contains("changed: message") { break }
            }
            counted.finish()
        }
        reader.start()
        // The idle line is on its way; a round trip of the control client lets the daemon read it.
        XCTAssertTrue(waitUntil(timeout: 5) { counted.idling }, "the idler never idled on \(daemon.name)")
        XCTAssertEqual(try daemon.control.request("ping"), ["OK"])
        XCTAssertEqual(try daemon.control.request(command), ["OK"], "\(command) on \(daemon.name)")
        XCTAssertTrue(waitUntil(timeout: 20) { settled(self.status(daemon.control)) }, "\(command) never settled on \(daemon.name)")
        XCTAssertEqual(try daemon.control.request("sendmessage marker end"), ["OK"])
        XCTAssertTrue(waitUntil(timeout: 20) { counted.done }, "the marker never reached the idler on \(daemon.name)")
        let (player, playlist) = counted.totals
        return (player, playlist)
    }

    /// The idler, handed to its reader thread, which alone uses it from then on.
    private struct Handoff: @unchecked Sendable {
        let value: LineClient
        init(_ value: LineClient) { self.value = value }
    }

    /// Wake-ups seen by the reader thread.
    private final class Counted: @unchecked Sendable {
        private let lock = NSLock()
        private var player = 0, playlist = 0, finished = false, idleSent = false

        func add(_ events: [String]) {
            lock.withLock {
                if events.contains("changed: player") { player += 1 }
                if events.contains("changed: playlist") { playlist += 1 }
            }
        }

        func finish() { lock.withLock { finished = true } }
        var done: Bool { lock.withLock { finished } }
        var totals: (Int, Int) { lock.withLock { (player, playlist) } }

        func sent() { lock.withLock { idleSent = true } }
        var idling: Bool { lock.withLock { idleSent } }
    }

    /// Nimbus must wake `player` idlers once, as MPD 0.24.13 does for each of these commands
    /// (measured by hand with `NIMBUS_REFERENCE_MPD` naming its binary); `checkReference`: the
    /// reference MPD's count is checked too. Not for `play` and `previous`, which wake Debian's
    /// MPD 0.23 twice, nor for `next` and deleting the playing song, which wake MPD once or
    /// twice depending on its player thread's timing (`next` twice on a loaded machine).
    private func compare(
        setup: [String], command: String, expected: Int = 1, checkReference: Bool = true, file: StaticString = #filePath, line: UInt = #line,
        settled: @escaping ([String: String]) -> Bool
    ) throws {
        try XCTSkipUnless(ServerProcess.mpdAvailable, "Debian's mpd is not installed (scripts/install-deps)")
        let music = TemporaryDirectory("nimbus-wakeups")
        for name in ["x", "y", "z"] { try AudioFixtures.writeRampWAV(to: music.file("\(name).wav"), frames: 441_000 * 3) }
        try AudioFixtures.writeRampWAV(to: music.file("short.wav"), frames: 66_150)
        let daemons = [try start(.mpd, music: music), try start(.nimbus, music: music)]
        let counts = try daemons.map { try wakeUps($0, setup: setup, command: command, settled: settled) }
        XCTAssertEqual(counts[1].player, expected, "player wake-ups after \(command) on Nimbus", file: file, line: line)
        XCTAssertEqual(counts[1].playlist, counts[0].playlist, "playlist wake-ups after \(command)", file: file, line: line)
        if checkReference {
            XCTAssertEqual(counts[0].player, expected, "player wake-ups after \(command) on MPD", file: file, line: line)
        }
    }

    private let queue = ["add x.wav", "add y.wav", "add z.wav"]

    /// Playing again, at least `seconds` into song `song`.
    private func playing(song: String, after seconds: Double = 0) -> ([String: String]) -> Bool {
        { $0["state"] == "play" && $0["song"] == song && (Double($0["elapsed"] ?? "") ?? -1) > seconds }
    }

    func testClearWhilePlayingWakesPlayerOnce() throws {
        try compare(setup: queue + ["play 1"], command: "clear") { $0["state"] == "stop" }
    }

    func testSeekWakesPlayerOnce() throws {
        try compare(setup: queue + ["play 1"], command: "seek 1 10", settled: playing(song: "1", after: 10))
    }

    func testSeekcurWakesPlayerOnce() throws {
        try compare(setup: queue + ["play 0"], command: "seekcur 12", settled: playing(song: "0", after: 12))
    }

    func testPreviousWakesPlayerOnce() throws {
        try compare(setup: queue + ["play 1"], command: "previous", checkReference: false, settled: playing(song: "0"))
    }

    func testNextWakesPlayerOnce() throws {
        try compare(setup: queue + ["play 0"], command: "next", checkReference: false, settled: playing(song: "1"))
    }

    func testDeletingThePlayingSongWakesPlayerOnce() throws {
        try compare(setup: queue + ["play 1"], command: "delete 1", checkReference: false, settled: playing(song: "1"))
    }

    func testPlayFromStopWakesPlayerOnce() throws {
        try compare(setup: queue + ["play 0", "stop"], command: "play 2", checkReference: false, settled: playing(song: "2"))
    }

    /// A song the queue reaches by itself wakes idlers once more: `play` once, the join once.
    func testTheNextSongStartingByItselfWakesPlayer() throws {
        try compare(setup: ["add short.wav", "add y.wav"], command: "play 0", expected: 2, checkReference: false, settled: playing(song: "1"))
    }
}
