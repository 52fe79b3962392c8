import Foundation
import NimbusHarness

/// Issue 3's figures on a generated corpus: full and no-change update, the heavy queries,
/// start-up with the database loaded and memory, for both daemons on the same files.
struct LibraryBenchmarks {
    let tracks: Int
    let quick: Bool

    func run(into report: inout BenchReport) throws {
        let corpus = TemporaryDirectory("nimbus-corpus")
        try runTool("/usr/bin/python3", [Fixtures.repositoryRoot + "/scripts/make-corpus", corpus.path, String(tracks)])
        // Read every file once so both daemons start from a warm page cache.
        try runTool("/bin/sh", ["-c", "find \"$0\" -type f -exec cat {} + > /dev/null", corpus.path])

        report.section("library (\(tracks) tracks)")
        let cpu = sysconf(Int32(_SC_NPROCESSORS_ONLN)) > 1 ? 1 : 0
        var daemons: [ServerProcess.Kind: ServerProcess] = [:]
        var fullUpdate: [ServerProcess.Kind: Double] = [:]
        for kind in [ServerProcess.Kind.mpd, .nimbus] {
            var daemon: ServerProcess?
            fullUpdate[kind] = try seconds {
                // Both daemons start a full update at launch when they have no database.
                daemon = try ServerProcess(kind, config: "max_output_buffer_size \"65536\"", cpu: cpu, musicDirectory: corpus.path)
                try daemon!.waitForDatabase(songs: tracks, timeout: 600)
            }
            daemons[kind] = daemon
        }
        let pair = DaemonPair(nimbus: daemons[.nimbus]!, mpd: daemons[.mpd]!)
        report.add(Figure(name: "full update (launch to done)", unit: "s", nimbus: fullUpdate[.nimbus]!, mpd: fullUpdate[.mpd]!, better: .lower))

        var updateCPU: [ServerProcess.Kind: [Double]] = [:]
        let noChange = pair.measure(rounds: 3) { daemon -> Double in
            let client = try! daemon.connect()
            let before = ProcessStats.cpuMicroseconds(daemon.process.processIdentifier)
            let wall = seconds {
                _ = try! client.request("update")
                try! daemon.waitForDatabase(songs: tracks)
            }
            updateCPU[daemon === pair.mpd ? .mpd : .nimbus, default: []].append(
                (ProcessStats.cpuMicroseconds(daemon.process.processIdentifier) - before) / 1000)
            return wall
        }
        report.add(Figure(name: "no-change update", unit: "s", nimbus: noChange.0, mpd: noChange.1, better: .lower))
        report.add(
            Figure(
                name: "no-change update, server CPU", unit: "ms", nimbus: updateCPU[.nimbus]!.sorted()[1],
                mpd: updateCPU[.mpd]!.sorted()[1], better: .lower))

        let queries: [(String, String)] = [
            ("listallinfo", "listallinfo"),
            ("search any", "search any \"song 0012\""),
            ("find album", "find album \"Album 0123\""),
            ("list album group albumartist", "list album group albumartist"),
            ("count genre", "count genre Rock"),
        ]
        // The time a client waits, and the server's own CPU for the answer: a listing of 5,000
        // songs is mostly the client reading 66,000 lines (Nimbus sends MPD 0.24's `Added` line
        // that 0.23 lacks), so the second figure is what the daemon costs.
        for (name, command) in queries {
            let repetitions = quick ? 3 : (command == "listallinfo" ? 10 : 50)
            var cpu: [ServerProcess.Kind: [Double]] = [:]
            let timing = pair.measure { daemon -> Double in
                let client = try! daemon.connect()
                let before = ProcessStats.cpuMicroseconds(daemon.process.processIdentifier)
                let wall = seconds { for _ in 0..<repetitions { _ = try! client.request(command) } } / Double(repetitions) * 1000
                cpu[daemon === pair.mpd ? .mpd : .nimbus, default: []].append(
                    (ProcessStats.cpuMicroseconds(daemon.process.processIdentifier) - before) / 1000 / Double(repetitions))
                return wall
            }
            report.add(Figure(name: name, unit: "ms", nimbus: timing.0, mpd: timing.1, better: .lower))
            report.add(
                Figure(
                    name: "  server CPU", unit: "ms", nimbus: cpu[.nimbus]!.sorted()[cpu[.nimbus]!.count / 2],
                    mpd: cpu[.mpd]!.sorted()[cpu[.mpd]!.count / 2], better: .lower))
        }

        let startup = pair.measure(rounds: 3) { daemon -> Double in
            daemon.stop()
            return try! seconds {
                try daemon.restart()
                try daemon.waitForDatabase(songs: tracks)
            } * 1000
        }
        report.add(Figure(name: "start-up with the database loaded", unit: "ms", nimbus: startup.0, mpd: startup.1, better: .lower))
        let rss = pair.measure { ProcessStats.residentKiB($0.process.processIdentifier) }
        report.add(Figure(name: "RSS with the database loaded", unit: "KiB", nimbus: rss.0, mpd: rss.1, better: .lower))
        withExtendedLifetime(corpus) {}
    }
}

/// Nimbus alone on a large corpus (MPD would take too long to be worth the wait here).
struct LargeLibraryBenchmark {
    let tracks: Int

    func run() throws -> [String] {
        let corpus = TemporaryDirectory("nimbus-corpus-large")
        try runTool("/usr/bin/python3", [Fixtures.repositoryRoot + "/scripts/make-corpus", corpus.path, String(tracks), "1"])
        try runTool("/bin/sh", ["-c", "find \"$0\" -type f -exec cat {} + > /dev/null", corpus.path])
        var daemon: ServerProcess?
        let update = try seconds {
            daemon = try ServerProcess(.nimbus, config: "max_output_buffer_size \"262144\"", musicDirectory: corpus.path)
            try daemon!.waitForDatabase(songs: tracks, timeout: 1800)
        }
        let client = try daemon!.connect()
        let listall = try seconds { _ = try client.request("listallinfo") }
        let search = try seconds { _ = try client.request("search any \"song 01234\"") }
        let startup = try seconds {
            try daemon!.restart()
            try daemon!.waitForDatabase(songs: tracks)
        }
        let rss = ProcessStats.residentKiB(daemon!.process.processIdentifier)
        return [
            "nimbus alone, \(tracks) tracks: full update \(String(format: "%.2f", update)) s, listallinfo \(String(format: "%.0f", listall * 1000)) ms, "
                + "search any \(String(format: "%.1f", search * 1000)) ms, start-up \(String(format: "%.0f", startup * 1000)) ms, RSS \(Int(rss)) KiB"
        ]
    }
}
