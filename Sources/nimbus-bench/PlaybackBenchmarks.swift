import Foundation
import Glibc
import NimbusHarness
import NimbusSupport

/// Issue 4's figures: decode throughput to an unpaced output (against the raw command-line
/// decoders too), CPU per second of paced playback, playlistinfo and plchanges on a
/// 10,000-song queue, and underruns while 200 clients poll status.
struct PlaybackBenchmarks {
    let quick: Bool

    /// Minutes of audio per test file.
    private var minutes: Int { quick ? 1 : 10 }

    func run(into report: inout BenchReport) throws -> [String] {
        let music = TemporaryDirectory("nimbus-bench-audio")
        try makeFiles(in: music)
        var notes: [String] = []
        notes += try decodeThroughput(music, into: &report)
        try pacedCPU(music, into: &report)
        try largeQueue(music, into: &report)
        notes += try pollingDuringPlayback(music, into: &report)
        return notes
    }

    /// Pink noise (realistic work for the codecs, unlike a sine) encoded six ways.
    private func makeFiles(in music: TemporaryDirectory) throws {
        let wav = music.file("source.wav")
        try runTool("sox", ["-n", "-r", "44100", "-c", "2", "-b", "16", wav, "synth", String(minutes * 60), "pinknoise", "vol", "0.5"])
        try runTool("flac", ["-s", "-f", "-o", music.file("long.flac"), wav])
        try runTool("lame", ["--quiet", "-b", "192", wav, music.file("long.mp3")])
        try runTool("oggenc", ["-Q", "-q", "5", "-o", music.file("long.ogg"), wav])
        let ffmpeg = ["-hide_banner", "-loglevel", "error", "-y", "-i", wav]
        try runTool("ffmpeg", ffmpeg + ["-c:a", "aac", "-b:a", "256k", music.file("long-aac.m4a")])
        try runTool("ffmpeg", ffmpeg + ["-c:a", "alac", music.file("long-alac.m4a")])
        try runTool("opusenc", ["--quiet", "--bitrate", "160", wav, music.file("long.opus")])
        try FileManager.default.removeItem(atPath: wav)
        try runTool("/bin/sh", ["-c", "cat \"$0\"/* > /dev/null", music.path])
    }

    static let files = ["long.flac", "long.mp3", "long.ogg", "long-aac.m4a", "long-alac.m4a", "long.opus"]

    private func pair(_ music: TemporaryDirectory, config: String, nullOutput: Bool = true) throws -> DaemonPair {
        let cpu = sysconf(Int32(_SC_NPROCESSORS_ONLN)) > 1 ? 1 : 0
        let mpd = try ServerProcess(.mpd, config: config, cpu: cpu, musicDirectory: music.path, nullOutput: nullOutput)
        let nimbus = try ServerProcess(.nimbus, config: config, cpu: cpu, musicDirectory: music.path, nullOutput: nullOutput)
        try mpd.waitForDatabase(songs: Self.files.count, timeout: 120)
        try nimbus.waitForDatabase(songs: Self.files.count, timeout: 120)
        return DaemonPair(nimbus: nimbus, mpd: mpd)
    }

    private func decodeThroughput(_ music: TemporaryDirectory, into report: inout BenchReport) throws -> [String] {
        report.section("decoding \(minutes) minutes to an unpaced output")
        let daemons = try pair(music, config: "audio_output {\n type \"null\"\n name \"fast\"\n sync \"no\"\n}", nullOutput: false)
        let raw = [
            "long.flac": "flac -d -s -c \"$0\" > /dev/null",
            "long.mp3": "mpg123 -q -s \"$0\" > /dev/null",
            "long.ogg": "oggdec -Q -o /dev/null \"$0\"",
            "long-aac.m4a": "ffmpeg -v error -i \"$0\" -f null -",
            "long-alac.m4a": "ffmpeg -v error -i \"$0\" -f null -",
            "long.opus": "opusdec --quiet \"$0\" /dev/null",
        ]
        var notes: [String] = []
        for file in Self.files {
            let timing = daemons.measure(rounds: quick ? 1 : 3) { daemon -> Double in
                let client = try! daemon.connect()
                _ = try! client.request("clear")
                _ = try! client.request("add \(file)")
                // Wait on `idle player` rather than polling, which would take CPU from the decoder.
                let watcher = try! daemon.connect(timeout: 300)
                return seconds {
                    try! watcher.send("idle player\n")
                    _ = try! client.request("play")
                    while true {
                        _ = try! watcher.readResponse()
                        if try! watcher.request("status").contains("state: stop") { break }
                        try! watcher.send("idle player\n")
                    }
                }
            }
            // The tool's own time: minus what starting a shell through Foundation costs.
            let spawn = try (0..<3).map { _ in try seconds { try runTool("/bin/sh", ["-c", "true"]) } }.sorted()[1]
            let rawTimes = try (0..<3).map { _ in try seconds { try runTool("/bin/sh", ["-c", raw[file]!, music.file(file)]) } }
            let rawTime = max(0.001, rawTimes.sorted()[1] - spawn)
            report.add(Figure(name: "play \(file) to the end", unit: "s", nimbus: timing.0, mpd: timing.1, better: .lower))
            let tool = raw[file]!.split(separator: " ")[0]
            notes.append(String(format: "decode speed of %@ vs raw %@: %.2f× (goal ≥ 0.9×; MPD %.2f×)", file, String(tool), rawTime / timing.0, rawTime / timing.1))
        }
        return notes
    }

    private func pacedCPU(_ music: TemporaryDirectory, into report: inout BenchReport) throws {
        report.section("paced playback (null output at real time)")
        let daemons = try pair(music, config: "")
        let window = quick ? 3.0 : 10.0
        for file in ["long.flac", "long.mp3"] {
            let cpu = daemons.measure(rounds: quick ? 1 : 3) { daemon -> Double in
                let client = try! daemon.connect()
                _ = try! client.request("clear")
                _ = try! client.request("add \(file)")
                _ = try! client.request("play")
                Thread.sleep(forTimeInterval: 1)
                let before = ProcessStats.cpuMicroseconds(daemon.process.processIdentifier)
                Thread.sleep(forTimeInterval: window)
                let used = ProcessStats.cpuMicroseconds(daemon.process.processIdentifier) - before
                _ = try! client.request("stop")
                return used / 1000 / window
            }
            report.add(Figure(name: "CPU per second playing \(file)", unit: "ms", nimbus: cpu.0, mpd: cpu.1, better: .lower))
        }
        // The same with a 5 s crossfade into the next song inside the window: both daemons mix
        // (same format), MPD in its player thread as the overlap is heard and Nimbus on its
        // decoder thread, about a pipe (6 s) ahead of that. Both refill their buffers after
        // the seek (MPD's holds some 24 s, Nimbus's 6 s): the window starts 27 s later, when
        // both decode at the rate they play, and spans what is heard from 13 s before the end
        // to 3 s into the next song, so both mixings and the same amount of decoding fall in it.
        let fade = daemons.measure(rounds: quick ? 1 : 3) { daemon -> Double in
            let client = try! daemon.connect()
            for command in ["clear", "crossfade 5", "add long.flac", "add long.flac", "play", "seekcur \(minutes * 60 - 40)"] {
                _ = try! client.request(command)
            }
            Thread.sleep(forTimeInterval: 27)
            let before = ProcessStats.cpuMicroseconds(daemon.process.processIdentifier)
            Thread.sleep(forTimeInterval: 16)
            let used = ProcessStats.cpuMicroseconds(daemon.process.processIdentifier) - before
            _ = try! client.request("stop")
            _ = try! client.request("crossfade 0")
            return used / 1000 / 16
        }
        report.add(Figure(name: "CPU per second across a 5 s crossfade (FLAC)", unit: "ms", nimbus: fade.0, mpd: fade.1, better: .lower))
    }

    private func largeQueue(_ music: TemporaryDirectory, into report: inout BenchReport) throws {
        report.section("10,000-song queue")
        let daemons = try pair(music, config: "max_output_buffer_size \"65536\"")
        for daemon in [daemons.mpd, daemons.nimbus] {
            let client = try daemon.connect()
            for _ in 0..<100 {
                try client.send("command_list_begin\n" + String(repeating: "add long.flac\nadd long.ogg\n", count: 50) + "command_list_end\n")
                _ = try client.readResponse()
            }
        }
        // What the client waits (mostly its own reading: Nimbus sends MPD 0.24's `Added`
        // lines), then what the server spends on the answer.
        for (name, command) in [("playlistinfo", "playlistinfo"), ("plchanges 0", "plchanges 0"), ("plchangesposid 0", "plchangesposid 0")] {
            var cpu: [ObjectIdentifier: [Double]] = [:]
            let timing = daemons.measure { daemon -> Double in
                let client = try! daemon.connect()
                let before = ProcessStats.cpuMicroseconds(daemon.process.processIdentifier)
                let wall = seconds { for _ in 0..<5 { _ = try! client.request(command) } } / 5 * 1000
                cpu[ObjectIdentifier(daemon), default: []].append((ProcessStats.cpuMicroseconds(daemon.process.processIdentifier) - before) / 5 / 1000)
                return wall
            }
            report.add(Figure(name: name, unit: "ms", nimbus: timing.0, mpd: timing.1, better: .lower))
            let ours = cpu[ObjectIdentifier(daemons.nimbus)]!.sorted(), theirs = cpu[ObjectIdentifier(daemons.mpd)]!.sorted()
            report.add(Figure(name: "  server CPU", unit: "ms", nimbus: ours[ours.count / 2], mpd: theirs[theirs.count / 2], better: .lower))
        }
    }

    /// Plays through a FIFO output read at real time by this process while 200 clients poll
    /// status ten times a second; counts the moments the reader found the FIFO short of audio.
    private func pollingDuringPlayback(_ music: TemporaryDirectory, into report: inout BenchReport) throws -> [String] {
        report.section("playback while 200 clients poll status")
        var results: [(Double, Int)] = []
        for kind in [ServerProcess.Kind.nimbus, .mpd] {
            let fifo = music.file("\(kind == .mpd ? "mpd" : "nimbus").fifo")
            mkfifo(fifo, 0o666)
            let config = "max_connections \"300\"\naudio_output {\n type \"fifo\"\n name \"pipe\"\n path \"\(fifo)\"\n format \"44100:16:2\"\n}"
            let daemon = try ServerProcess(kind, config: config, musicDirectory: music.path, nullOutput: false)
            try daemon.waitForDatabase(songs: Self.files.count, timeout: 120)
            let reader = FifoReader(path: fifo)
            let stop = Atomic(false)
            let polls = Atomic(0)
            let endpoint = daemon.endpoint
            let threads: [@Sendable () -> Void] = (0..<4).map { _ in
                {
                    // Each thread keeps 50 connections open and polls each ten times a second.
                    let clients = (0..<50).compactMap { _ in try? LineClient.connected(endpoint).0 }
                    while !stop.value {
                        for client in clients {
                            _ = try? client.request("status")
                            polls.increment()
                        }
                        usleep(100_000)
                    }
                }
            }
            let control = try daemon.connect()
            _ = try control.request("add long.flac")
            _ = try control.request("play")
            threads.forEach { DaemonThread.start(name: "bench-poll", $0) }
            let duration = quick ? 5.0 : 20.0
            let underruns = reader.run(seconds: duration)
            stop.value = true
            results.append((Double(polls.value) / duration, underruns))
            _ = try control.request("stop")
        }
        report.add(Figure(name: "status polls answered", unit: "per s", nimbus: results[0].0, mpd: results[1].0, better: .higher))
        report.add(Figure(name: "underruns (FIFO short of audio)", unit: "count", nimbus: Double(results[0].1), mpd: Double(results[1].1), better: .lower))
        return ["underruns while 200 clients poll: nimbus \(results[0].1), MPD \(results[1].1) (goal: none)"]
    }
}

/// Reads a FIFO the way a real-time consumer (snapserver, a sound card) does: a fixed amount
/// every 10 ms from the first byte on, counting ticks where less than that had arrived.
struct FifoReader {
    let path: String

    func run(seconds: Double) -> Int {
        let fd = open(path, O_RDONLY | O_NONBLOCK)
        guard fd >= 0 else { return -1 }
        defer { close(fd) }
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        let bytesPerTick = 44100 * 4 / 100
        var start: UInt64?
        var received = 0
        var underruns = 0
        var lastShort = false
        let end = DispatchTime.now().uptimeNanoseconds + UInt64(seconds * 1e9)
        while DispatchTime.now().uptimeNanoseconds < end {
            let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress!, $0.count) }
            if count > 0 {
                received += count
                if start == nil { start = DispatchTime.now().uptimeNanoseconds }
            }
            if let start {
                // Allow 50 ms of slack: a consumer's own buffer.
                let elapsedTicks = Int((DispatchTime.now().uptimeNanoseconds - start) / 10_000_000)
                let short = received < (elapsedTicks - 5) * bytesPerTick
                if short && !lastShort { underruns += 1 }
                lastShort = short
            }
            usleep(10_000)
        }
        return underruns
    }
}

/// A lock-protected value shared with the polling threads.
private final class Atomic<Value: Sendable>: @unchecked Sendable {
    // Invariant: `stored` is only touched with `lock` held.
    private let lock = NSLock()
    private var stored: Value
    init(_ value: Value) { stored = value }
    var value: Value {
        get { lock.withLock { stored } }
        set { lock.withLock { stored = newValue } }
    }
}

extension Atomic where Value == Int {
    func increment() { lock.withLock { stored += 1 } }
}
