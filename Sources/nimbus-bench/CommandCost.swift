import Foundation
import CLinux
import Glibc
import NimbusHarness

/// Round trips and the server's CPU per command for `ping`, `status` and `currentsong`, one
/// after another and in `command_list_ok_begin` batches of 100 (the goal: 1.25× MPD's round
/// trips, 0.8× its CPU) — measured four ways, because a held-out run disagreed with one:
/// with the client on a core of its own and with client and daemons sharing one (a one-core
/// board), for the static build `make deb` ships and the dynamically linked one `make run`
/// starts.
struct CommandCost {
    let pair: DaemonPair
    let quick: Bool
    /// The core the daemons are pinned to; the floor loop runs there too.
    let core: Int
    /// Whether the bench's own thread shares the daemons' core while it measures.
    let sameCore: Bool

    /// Every pinning for the build under test, then every pinning for the other build
    /// (started on a copy of the same database).
    static func everyWay(pair: DaemonPair, quick: Bool, core: Int, into report: inout BenchReport) throws {
        let builds = [("make deb", ServerProcess.nimbusExecutable), ("make run", ServerProcess.buildDirectory + "/nimbusd")]
        let dynamic = Fixtures.repositoryRoot + "/.build/release/nimbusd"
        for (index, build) in builds.enumerated() {
            var nimbus = pair.nimbus
            if index > 0 {
                let path = FileManager.default.isExecutableFile(atPath: dynamic) ? dynamic : build.1
                guard path != ServerProcess.nimbusExecutable else { continue }
                nimbus = try sibling(of: pair.nimbus, executable: path, core: core)
            }
            let measured = DaemonPair(nimbus: nimbus, mpd: pair.mpd)
            for sameCore in [false, true] {
                let place = sameCore ? "client on the daemons' core" : "client on its own core"
                report.section("command cost, \(build.0) build, \(place)")
                CommandCost(pair: measured, quick: quick, core: core, sameCore: sameCore).run(into: &report)
            }
            if index > 0 { nimbus.stop() }
        }
    }

    /// Another nimbusd on a copy of `daemon`'s database, with its whole library queued as the
    /// bench left the first one's.
    private static func sibling(of daemon: ServerProcess, executable: String, core: Int) throws -> ServerProcess {
        let music = try String(contentsOfFile: daemon.configPath, encoding: .utf8).split(separator: "\n")
            .first { $0.hasPrefix("music_directory ") }.map { String($0.dropFirst(16).dropFirst().dropLast()) }
        let other = try ServerProcess(
            .nimbus, config: "max_output_buffer_size \"262144\"\nmax_playlist_length \"200000\"", cpu: core, musicDirectory: music,
            launchNow: false, executable: executable)
        try FileManager.default.copyItem(atPath: daemon.directory.path + "/database", toPath: other.directory.path + "/database")
        try other.start()
        let client = try other.connect(timeout: 60)
        _ = try client.request("add \"\"")
        return other
    }

    func run(into report: inout BenchReport) {
        if sameCore { Self.pinCurrentThread(to: core) }
        defer { if sameCore { Self.unpinCurrentThread() } }
        for daemon in [pair.nimbus, pair.mpd] {
            // A current song, stopped: `currentsong` and `status` answer in full, nothing plays.
            let client = try! daemon.connect()
            for line in ["addid \"ZZ Long/long.flac\" 0", "play 0", "stop"] { _ = try! client.request(line) }
        }
        let single = quick ? 2_000 : 20_000
        let batches = quick ? 50 : 500
        for command in ["ping", "status", "currentsong"] {
            var cpu: [ServerProcess.Kind: [Double]] = [:]
            let floor = command == "ping" && !sameCore ? try? RunningFloor(cpu: core) : nil
            let rate = pair.measure { daemon -> Double in
                let client = try! daemon.connect()
                let before = ProcessStats.cpuMicroseconds(daemon.process.processIdentifier)
                let elapsed = seconds { for _ in 0..<single { _ = try! client.request(command) } }
                cpu[daemon === pair.mpd ? .mpd : .nimbus, default: []].append(
                    (ProcessStats.cpuMicroseconds(daemon.process.processIdentifier) - before) / Double(single))
                if daemon === pair.mpd { floor?.measure(commands: single) }
                return Double(single) / elapsed
            }
            report.add(Figure(name: "\(command) round trips", unit: "/s", nimbus: rate.0, mpd: rate.1, better: .higher, goal: 1.25))
            report.add(Figure(name: "  server CPU per \(command)", unit: "µs", nimbus: median(cpu[.nimbus]!), mpd: median(cpu[.mpd]!), better: .lower, goal: 0.8))
            if let floor {
                // Not Nimbus: the bare recv/send loop against MPD, where the goal would start.
                // The first round of each is a warm-up, as in `measure`.
                report.add(
                    Figure(name: "  floor (bare epoll loop) round trips", unit: "/s", nimbus: median(Array(floor.rates.dropFirst())), mpd: rate.1,
                        better: .higher, goal: 1.25))
                report.add(
                    Figure(name: "  floor (bare epoll loop) CPU per ping", unit: "µs", nimbus: median(Array(floor.costs.dropFirst())),
                        mpd: median(cpu[.mpd]!), better: .lower, goal: 0.8))
            }
            let batch = "command_list_ok_begin\n" + String(repeating: command + "\n", count: 100) + "command_list_end\n"
            var listCPU: [ServerProcess.Kind: [Double]] = [:]
            let listRate = pair.measure { daemon -> Double in
                let client = try! daemon.connect()
                let before = ProcessStats.cpuMicroseconds(daemon.process.processIdentifier)
                let elapsed = seconds {
                    for _ in 0..<batches {
                        try! client.send(batch)
                        _ = try! client.readResponse()
                    }
                }
                listCPU[daemon === pair.mpd ? .mpd : .nimbus, default: []].append(
                    (ProcessStats.cpuMicroseconds(daemon.process.processIdentifier) - before) / Double(batches * 100))
                return Double(batches * 100) / elapsed
            }
            report.add(Figure(name: "\(command) in lists of 100", unit: "/s", nimbus: listRate.0, mpd: listRate.1, better: .higher, goal: 1.25))
            report.add(
                Figure(name: "  server CPU per \(command) in a list", unit: "µs", nimbus: median(listCPU[.nimbus]!), mpd: median(listCPU[.mpd]!),
                    better: .lower, goal: 0.8))
        }
    }

    /// The calling thread (the bench's client) on `core` alone, as on a one-core board.
    static func pinCurrentThread(to core: Int) { _ = clinux_pin_thread(Int32(core)) }

    /// Back to where `make bench` started it (core 0).
    static func unpinCurrentThread() { _ = clinux_pin_thread(0) }
}
