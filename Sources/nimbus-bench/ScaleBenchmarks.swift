import Foundation
import NimbusHarness

/// Issue 32's figures on a generated library of 5,000 and 50,000 songs (`--songs N` for one):
/// memory in the four states a box lives in (empty database, after a full update, database
/// loaded at start-up, whole library queued), `add ""` and `playlistinfo` of the full queue,
/// the server's CPU per command, and how fast an idle client hears of a player change.
/// MPD and Nimbus run side by side, both pinned to the same core.
struct ScaleBenchmarks {
    let songs: Int
    let quick: Bool

    func run(into report: inout BenchReport) throws {
        let cpu = sysconf(Int32(_SC_NPROCESSORS_ONLN)) > 1 ? 1 : 0
        report.section("\(songs) songs: memory, queue, command cost, wake-up (whole library queued)")
        let empty = try DaemonPair(config: "max_connections \"200\"")
        for daemon in [empty.nimbus, empty.mpd] { _ = try daemon.connect().request("ping") }
        addMemory(empty, state: "empty database", into: &report)
        empty.nimbus.stop()
        empty.mpd.stop()

        let corpus = TemporaryDirectory("nimbus-corpus-scale")
        try runTool("/usr/bin/python3", [Fixtures.repositoryRoot + "/scripts/make-corpus", corpus.path, String(songs), "1"])
        // One long song to pause, resume and seek in (the corpus's are a second long).
        try FileManager.default.createDirectory(atPath: corpus.path + "/ZZ Long", withIntermediateDirectories: true)
        try runTool("/usr/bin/sox", ["-D", "-n", "-r", "44100", "-c", "2", "-b", "16", corpus.path + "/ZZ Long/long.flac", "synth", "120", "sine", "440", "vol", "0.3"])
        let songs = self.songs + 1
        try runTool("/bin/sh", ["-c", "find \"$0\" -type f -exec cat {} + > /dev/null", corpus.path])
        var started: [ServerProcess.Kind: ServerProcess] = [:]
        for kind in [ServerProcess.Kind.mpd, .nimbus] {
            // Both start a full update at launch when they have no database.
            let daemon = try ServerProcess(kind, config: "max_output_buffer_size \"262144\"\nmax_playlist_length \"200000\"", cpu: cpu, musicDirectory: corpus.path)
            try daemon.waitForDatabase(songs: songs, timeout: 1800)
            started[kind] = daemon
        }
        let pair = DaemonPair(nimbus: started[.nimbus]!, mpd: started[.mpd]!)
        addMemory(pair, state: "after a full update", into: &report)
        // What a user who fixes tags and rescans keeps: an update that finds nothing, then a rescan.
        for daemon in [pair.nimbus, pair.mpd] {
            for command in ["update", "rescan"] {
                let client = try daemon.connect(timeout: 60)
                _ = try client.request(command)
                guard waitUntil(timeout: 1800, { (try? client.request("status"))?.contains { $0.hasPrefix("updating_db") } == false }) else {
                    throw ToolFailure(description: "\(command) did not end")
                }
            }
        }
        addMemory(pair, state: "after a no-change update and a rescan", into: &report)
        for daemon in [pair.nimbus, pair.mpd] {
            try daemon.restart()
            try daemon.waitForDatabase(songs: songs)
        }
        addMemory(pair, state: "database loaded at start", into: &report)

        let rounds = quick ? 1 : 3
        let add = pair.measure(rounds: rounds) { daemon -> Double in
            let client = try! daemon.connect(timeout: 60)
            _ = try! client.request("clear")
            return seconds { _ = try! client.request("add \"\"") } * 1000
        }
        report.add(Figure(name: "add \"\" (whole library)", unit: "ms", nimbus: add.0, mpd: add.1, better: .lower))
        // The wall time includes the bench's client splitting 750,000 lines, the same for both;
        // the server's CPU for the answer is the daemon's own share.
        var listingCPU: [ServerProcess.Kind: [Double]] = [:]
        let listing = pair.measure(rounds: rounds) { daemon -> Double in
            let client = try! daemon.connect(timeout: 60)
            let before = ProcessStats.cpuMicroseconds(daemon.process.processIdentifier)
            let elapsed = seconds { _ = try! client.request("playlistinfo") } * 1000
            listingCPU[daemon === pair.mpd ? .mpd : .nimbus, default: []].append(
                (ProcessStats.cpuMicroseconds(daemon.process.processIdentifier) - before) / 1000)
            return elapsed
        }
        report.add(Figure(name: "playlistinfo of the whole queue", unit: "ms", nimbus: listing.0, mpd: listing.1, better: .lower))
        report.add(
            Figure(name: "  server CPU per playlistinfo", unit: "ms", nimbus: median(listingCPU[.nimbus]!), mpd: median(listingCPU[.mpd]!),
                better: .lower))
        addMemory(pair, state: "whole library queued", into: &report)

        try CommandCost.everyWay(pair: pair, quick: quick, core: cpu, into: &report)
        WakeUp(pair: pair, samples: quick ? 30 : 300).run(into: &report)
        withExtendedLifetime(corpus) {}
    }

    private func addMemory(_ pair: DaemonPair, state: String, into report: inout BenchReport) {
        let ours = settledMemory(pair.nimbus.process.processIdentifier)
        let theirs = settledMemory(pair.mpd.process.processIdentifier)
        report.add(Figure(name: "VmRSS, \(state)", unit: "MiB", nimbus: ours.rss / 1024, mpd: theirs.rss / 1024, better: .lower, goal: 1.1))
        report.add(Figure(name: "RssAnon, \(state)", unit: "MiB", nimbus: ours.anonymous / 1024, mpd: theirs.anonymous / 1024, better: .lower))
    }
}

/// The memory of a daemon once it has stopped shrinking: a daemon may hand freed pages back
/// a moment after the command (Nimbus trims its heap a second after a large queue change or
/// answer, off the core loop), and the figure is the state the box then stays in. Read every
/// half second until three readings in a row (1.5 s) fell by no more than 1%, 6 s at most.
private func settledMemory(_ pid: Int32) -> (rss: Double, anonymous: Double) {
    var last = ProcessStats.memory(pid)
    var steady = 0
    for _ in 0..<12 where steady < 3 {
        usleep(500_000)
        let now = ProcessStats.memory(pid)
        steady = now.anonymous >= last.anonymous * 0.99 ? steady + 1 : 0
        last = now
    }
    return last
}

/// Time from a player command on one connection to `changed: player` on a connection idling
/// for it, per command, median and 99th percentile (the goal: p99 ≤ 2 ms).
struct WakeUp {
    let pair: DaemonPair
    let samples: Int

    /// Each step changes the player from the state the step before left it in.
    private static let cycle = ["play 0", "pause 1", "pause 0", "seekcur 5", "next", "stop"]

    func run(into report: inout BenchReport) {
        var results: [ServerProcess.Kind: [String: [Double]]] = [:]
        for daemon in [pair.mpd, pair.nimbus] {
            let idler = try! daemon.connect(), sender = try! daemon.connect()
            _ = try! sender.request("repeat 1")
            var times: [String: [Double]] = [:]
            for _ in 0..<samples {
                for command in Self.cycle {
                    // An idle answered at once reports a change of the step before (the player
                    // thread finishing a seek, say): taken, and idle again, so only the
                    // command's own wake-up is timed.
                    while true {
                        try! idler.send("idle player\n")
                        _ = try! sender.request("ping")  // the idle has been read once this returns
                        if try! idler.isQuiet(for: 0.002) { break }
                        _ = try! idler.readResponse()
                    }
                    let start = DispatchTime.now().uptimeNanoseconds
                    try! sender.send(command + "\n")
                    _ = try! idler.readResponse()
                    times[command, default: []].append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6)
                    _ = try! sender.readResponse()
                }
            }
            results[daemon === pair.mpd ? .mpd : .nimbus] = times
        }
        for command in Self.cycle {
            let ours = results[.nimbus]![command]!.sorted(), theirs = results[.mpd]![command]!.sorted()
            report.add(Figure(name: "wake-up after \(command), median", unit: "ms", nimbus: percentile(ours, 0.5), mpd: percentile(theirs, 0.5), better: .lower))
            report.add(Figure(name: "wake-up after \(command), p99", unit: "ms", nimbus: percentile(ours, 0.99), mpd: percentile(theirs, 0.99), better: .lower))
        }
    }

    private func percentile(_ sorted: [Double], _ fraction: Double) -> Double {
        sorted[min(sorted.count - 1, Int(Double(sorted.count) * fraction))]
    }
}

func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }
