import Foundation
import NimbusHarness
import XCTest

/// The decoder runs a little below the thread that answers clients: at the same priority, a
/// daemon confined to one core answered idle clients after the decoder's first burst (a
/// wake-up p99 of 3–4 ms after `play`). Read from /proc as `top -H` shows it.
final class ThreadPriorityDaemonTests: XCTestCase {
    /// The nice value of every thread of `pid` (field 19 of /proc/PID/task/TID/stat).
    private func threadNices(_ pid: Int32) -> [Int32] {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []
        return tasks.compactMap { nice(pid, thread: $0) }
    }

    private func nice(_ pid: Int32, thread: String) -> Int32? {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/task/\(thread)/stat", encoding: .utf8),
            let close = stat.lastIndex(of: ")")
        else { return nil }
        // Fields after the name: state is field 3, nice field 19.
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        return fields.count > 16 ? Int32(fields[16]) : nil
    }

    func testTheDecoderRunsBelowTheCoreLoop() throws {
        let music = TemporaryDirectory("nimbus-priority")
        try AudioFixtures.writeRampWAV(to: music.file("x.wav"), frames: 441_000)
        let daemon = try ServerProcess(.nimbus, musicDirectory: music.path)
        try daemon.waitForDatabase(songs: 1)
        let control = try daemon.connect()
        let pid = daemon.process.processIdentifier
        // The main thread's is the process's own (Dispatch may raise one of its own threads).
        let base = try XCTUnwrap(nice(pid, thread: String(pid)))
        XCTAssertFalse(threadNices(pid).contains(base + 5), "no thread runs at the decoder's priority before playback")
        XCTAssertEqual(try control.request("add x.wav"), ["OK"])
        XCTAssertEqual(try control.request("play 0"), ["OK"])
        XCTAssertTrue(waitUntil(timeout: 10) { self.threadNices(pid).contains(base + 5) }, "the decoder never lowered its priority: \(threadNices(pid))")
        // The core loop, which answers every client, still runs at the process's own priority.
        XCTAssertEqual(try control.request("ping"), ["OK"])
        XCTAssertTrue(threadNices(pid).contains(base))
        // `top -H` and `ps -L` tell the threads apart by name, the one at the decoder's
        // priority being the decoder.
        let names = threadNames(pid)
        XCTAssertTrue(names.values.contains("nimbus-core"), "\(names)")
        XCTAssertTrue(names.values.contains("decoder"), "\(names)")
        let decoders = names.filter { $0.value == "decoder" }.keys
        XCTAssertTrue(decoders.contains { nice(pid, thread: $0) == base + 5 }, "\(names)")
    }


    /// The names in docs/design.md's thread table, `NAME`/`PORT`/`ACCOUNT`/`-N` as wildcards.
    private func documentedThreadNames() throws -> [NSRegularExpression] {
        let design = try String(contentsOfFile: Fixtures.repositoryRoot + "/docs/design.md", encoding: .utf8)
        guard let table = design.components(separatedBy: "## Threads").dropFirst().first else { return [] }
        var patterns: [NSRegularExpression] = []
        for line in table.split(separator: "\n") where line.hasPrefix("| `") {
            let first = line.split(separator: "|", omittingEmptySubsequences: true).first ?? ""
            for name in first.split(separator: "`") where !name.trimmingCharacters(in: .whitespaces).isEmpty && name != ", " {
                var pattern = NSRegularExpression.escapedPattern(for: String(name))
                for wildcard in ["NAME", "PORT", "ACCOUNT"] { pattern = pattern.replacingOccurrences(of: wildcard, with: ".+") }
                pattern = pattern.replacingOccurrences(of: "-N", with: "-[0-9]+")
                patterns.append(try NSRegularExpression(pattern: "^" + pattern + "$"))
            }
        }
        return patterns
    }

    /// Every thread of a daemon that plays, streams, answers the web page and the phone API
    /// is one the design's thread table names, and the table is no wish list: the threads
    /// every such daemon runs are there.
    func testEveryThreadIsInTheDesignsThreadTable() throws {
        let patterns = try documentedThreadNames()
        XCTAssertGreaterThan(patterns.count, 20, "the thread table was found")
        let music = TemporaryDirectory("nimbus-threads")
        try AudioFixtures.writeRampWAV(to: music.file("x.wav"), frames: 441_000)
        let httpd = freePort()
        let daemon = try ServerProcess(
            .nimbus, config: "audio_output {\n type \"httpd\"\n name \"stream\"\n port \"\(httpd)\"\n encoder \"wave\"\n}\n",
            musicDirectory: music.path)
        try daemon.waitForDatabase(songs: 1)
        let control = try daemon.connect()
        XCTAssertEqual(try control.request("add x.wav"), ["OK"])
        XCTAssertEqual(try control.request("play 0"), ["OK"])
        let pid = daemon.process.processIdentifier
        XCTAssertTrue(waitUntil(timeout: 10) { self.threadNames(pid).values.contains("output-stream") }, "\(threadNames(pid))")
        let names = Set(threadNames(pid).values)
        for expected in ["nimbusd", "nimbus-core", "decoder", "output-stream", "httpd-\(httpd)"] {
            XCTAssertTrue(names.contains(expected), "\(expected) in \(names)")
        }
        let unknown = names.filter { name in
            !patterns.contains { $0.firstMatch(in: name, range: NSRange(location: 0, length: (name as NSString).length)) != nil }
        }
        XCTAssertEqual(unknown, [], "threads docs/design.md does not list")
    }

    /// Each thread's name as the kernel holds it, by thread id.
    private func threadNames(_ pid: Int32) -> [String: String] {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []
        var names: [String: String] = [:]
        for task in tasks {
            guard let comm = try? String(contentsOfFile: "/proc/\(pid)/task/\(task)/comm", encoding: .utf8) else { continue }
            names[task] = comm.trimmingCharacters(in: .newlines)
        }
        return names
    }
}
