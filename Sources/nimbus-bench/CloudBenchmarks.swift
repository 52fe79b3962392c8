import Foundation
import Glibc
import NimbusHarness
import NimbusSupport

/// Issue 5's figures against MPD's curl storage on the same WebDAV files (Debian's nginx),
/// each daemon behind its own proxy that adds 50 ms per request and counts the bytes:
/// indexing time and bytes per track, time to first audio of a new and of a cached song,
/// bytes moved by a seek.
struct CloudBenchmarks {
    let quick: Bool

    func run(into report: inout BenchReport) throws -> [String] {
        let share = TemporaryDirectory("nimbus-bench-share")
        let tracks = quick ? 100 : 1000
        try runTool("/usr/bin/python3", [Fixtures.repositoryRoot + "/scripts/make-corpus", share.file("corpus"), String(tracks), "20"])
        try FileManager.default.createDirectory(atPath: share.file("play"), withIntermediateDirectories: true)
        for index in 1...7 {
            let wav = share.file("play/\(index).wav")
            try runTool("sox", ["-n", "-r", "44100", "-c", "2", "-b", "16", wav, "synth", "60", "pinknoise", "vol", "0.4"])
            try runTool("flac", ["-s", "-f", "-o", share.file("play/\(index).flac"), wav])
            try FileManager.default.removeItem(atPath: wav)
        }
        let server = try WebDAVServer(root: share.path, authenticated: false)
        let songs = tracks + 7
        report.section("cloud: WebDAV (nginx) at 50 ms per request, \(tracks) tracks")

        // MPD: simple database with a cache directory, the share mounted with `mount`.
        let mpdProxy = try LatencyProxy(targetPort: server.port, milliseconds: 50)
        let mpdCache = TemporaryDirectory("nimbus-bench-mpdcache")
        let mpdFifo = try FirstAudioProbe(path: share.file("mpd.fifo"))
        let mpd = try ServerProcess(
            .mpd,
            config: "database {\n plugin \"simple\"\n path \"\(mpdCache.file("db"))\"\n cache_directory \"\(mpdCache.path)\"\n}\n"
                + mpdFifo.outputBlock,
            cpu: 1, nullOutput: false)
        let mpdIndexing = try seconds {
            _ = try mpd.connect().request("mount dav http://127.0.0.1:\(mpdProxy.port)/dav/")
            try waitForSongs(mpd, songs)
        }
        let mpdIndexBytes = mpdProxy.bytes

        // Nimbus: the same share as a configured account, indexed at start.
        let ourProxy = try LatencyProxy(targetPort: server.port, milliseconds: 50)
        let ourFifo = try FirstAudioProbe(path: share.file("nimbus.fifo"))
        let config = "cloud {\n name \"dav\"\n type \"webdav\"\n url \"http://127.0.0.1:\(ourProxy.port)/dav/\"\n}\n" + ourFifo.outputBlock
        var nimbus: ServerProcess?
        let ourIndexing = try seconds {
            nimbus = try ServerProcess(.nimbus, config: config, cpu: 1, nullOutput: false)
            try waitForSongs(nimbus!, songs)
        }
        let ourIndexBytes = ourProxy.bytes
        // Fresh connections from here on: the ones above may have met connection_timeout.
        let ours = nimbus!
        report.add(Figure(name: "index \(songs) cloud tracks", unit: "s", nimbus: ourIndexing, mpd: mpdIndexing, better: .lower))
        report.add(
            Figure(
                name: "bytes per indexed track", unit: "KiB", nimbus: Double(ourIndexBytes) / Double(songs) / 1024,
                mpd: Double(mpdIndexBytes) / Double(songs) / 1024, better: .lower))

        // Time to first audio of songs never played, then of a cached one.
        var ourFirst: [Double] = []
        var mpdFirst: [Double] = []
        var ourElapsed: [Double] = []
        var mpdElapsed: [Double] = []
        for index in 1...3 {
            mpdFirst.append(try firstAudio(mpd, mpdFifo, "dav/play/\(index).flac"))
            mpdElapsed.append(lastElapsed)
            ourFirst.append(try firstAudio(ours, ourFifo, "dav/play/\(index).flac"))
            ourElapsed.append(lastElapsed)
        }
        report.add(
            Figure(
                name: "first audio, new song (head indexed)", unit: "ms", nimbus: ourFirst.sorted()[1] * 1000,
                mpd: mpdFirst.sorted()[1] * 1000, better: .lower))
        report.add(
            Figure(
                name: "status elapsed > 0 after play, same songs", unit: "ms", nimbus: ourElapsed.sorted()[1] * 1000,
                mpd: mpdElapsed.sorted()[1] * 1000, better: .lower))
        // Songs 5–7 have never been played: starting at 0:45 needs bytes nobody fetched yet.
        var ourCold: [Double] = []
        var mpdCold: [Double] = []
        for index in 5...7 {
            mpdCold.append(try firstAudio(mpd, mpdFifo, "dav/play/\(index).flac", start: "seek 0 45"))
            ourCold.append(try firstAudio(ours, ourFifo, "dav/play/\(index).flac", start: "seek 0 45"))
        }
        report.add(
            Figure(
                name: "first audio from 0:45, uncached", unit: "ms", nimbus: ourCold.sorted()[1] * 1000,
                mpd: mpdCold.sorted()[1] * 1000, better: .lower))
        let mpdAgain = try firstAudio(mpd, mpdFifo, "dav/play/1.flac")
        ourProxy.stop()
        let ourCached = try firstAudio(ours, ourFifo, "dav/play/1.flac")
        report.add(
            Figure(
                name: "first audio, played before (ours offline)", unit: "ms", nimbus: ourCached * 1000, mpd: mpdAgain * 1000,
                better: .lower))

        // Bytes a seek into a song not heard before moves in its first second.
        let seekProxy = try LatencyProxy(targetPort: server.port, milliseconds: 50)
        let seekConfig = "cloud {\n name \"dav\"\n type \"webdav\"\n url \"http://127.0.0.1:\(seekProxy.port)/dav/\"\n}"
        let seeker = try ServerProcess(.nimbus, config: seekConfig, cpu: 1)
        try waitForSongs(seeker, songs)
        let ourSeek = try seekBytes(seeker, proxy: seekProxy)
        let mpdSeek = try seekBytes(mpd, proxy: mpdProxy, song: "dav/play/4.flac")
        report.add(Figure(name: "bytes moved by seek + 1 s of play", unit: "KiB", nimbus: ourSeek / 1024, mpd: mpdSeek / 1024, better: .lower))

        let libraryBytes = Double(FileManager.default.enumerator(atPath: share.path)?.compactMap { $0 as? String }.reduce(0) { total, name in
            total + ((try? FileManager.default.attributesOfItem(atPath: share.file(name))[.size] as? Int) ?? 0)
        } ?? 0)
        return [
            String(
                format: "indexing moved %.1f%% of the library's bytes (MPD %.1f%%)", Double(ourIndexBytes) / libraryBytes * 100,
                Double(mpdIndexBytes) / libraryBytes * 100)
        ]
    }

    private func waitForSongs(_ daemon: ServerProcess, _ songs: Int) throws {
        try daemon.waitForDatabase(songs: songs, timeout: 1800)
    }

    private func firstAudio(_ daemon: ServerProcess, _ probe: FirstAudioProbe, _ song: String, start command: String = "play") throws
        -> Double
    {
        let timing = try probe.time(daemon, song, start: command)
        lastElapsed = timing.elapsed
        return timing.audio
    }

    /// Seconds from the last `firstAudio` start until `status` showed an elapsed time.
    private var lastElapsed: Double {
        get { elapsedBox.value }
        nonmutating set { elapsedBox.set(newValue) }
    }
    let elapsedBox = LockedBox(0.0)

    private func seekBytes(_ daemon: ServerProcess, proxy: LatencyProxy, song: String = "dav/play/4.flac") throws -> Double {
        let client = try daemon.connect()
        _ = try client.request("stop")
        _ = try client.request("clear")
        _ = try client.request("add \"\(song)\"")
        Thread.sleep(forTimeInterval: 0.5)
        let before = proxy.bytes
        _ = try client.request("seek 0 40")
        Thread.sleep(forTimeInterval: 1)
        _ = try client.request("stop")
        Thread.sleep(forTimeInterval: 0.5)
        return Double(proxy.bytes - before)
    }
}

/// The reading end of a daemon's FIFO output: when its first audio arrives. Kept open for
/// the daemon's life so that neither daemon ever writes into a FIFO nobody reads.
final class FirstAudioProbe {
    private let fd: Int32
    let outputBlock: String

    init(path: String) throws {
        guard mkfifo(path, 0o666) == 0 else { throw BenchFailure("mkfifo \(path) failed") }
        fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else { throw BenchFailure("cannot open \(path)") }
        outputBlock = "audio_output {\n type \"fifo\"\n name \"pipe\"\n path \"\(path)\"\n format \"44100:16:2\"\n}\n"
    }

    deinit { close(fd) }

    /// Queues `song` alone on a stopped daemon and empties the FIFO: ready to time a start.
    func prepare(_ daemon: ServerProcess, _ song: String) throws -> LineClient {
        let client = try daemon.connect()
        _ = try client.request("stop")
        _ = try client.request("clear")
        _ = try client.request("add \"\(song)\"")
        drain()
        return client
    }

    /// From `start` (`play`, or a seek that starts playback) to the first byte of audio in the
    /// FIFO (`audio`), and to the first `status` whose elapsed is above zero, as a client sees
    /// it (`elapsed`), in seconds.
    func time(_ daemon: ServerProcess, _ song: String, start command: String = "play") throws -> (audio: Double, elapsed: Double) {
        let client = try prepare(daemon, song)
        let poller = try daemon.connect()
        let start = DispatchTime.now().uptimeNanoseconds
        _ = try client.request(command)
        var elapsed = 120.0
        while DispatchTime.now().uptimeNanoseconds - start < 120_000_000_000 {
            let shown = try poller.request("status").first { $0.hasPrefix("elapsed: ") }.flatMap { Double($0.dropFirst(9)) } ?? 0
            if shown > 0 {
                elapsed = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
                break
            }
        }
        guard let heard = waitForAudio(timeout: 120) else { throw BenchFailure("no audio from \(song)") }
        return (Double(heard - start) / 1e9, elapsed)
    }

    /// Empties the FIFO and waits until nothing more arrives (the previous song has stopped).
    func drain() {
        var quiet = 0
        while quiet < 5 {
            quiet = readAvailable() > 0 ? 0 : quiet + 1
            usleep(10_000)
        }
    }

    /// The moment the first bytes arrived, in uptime nanoseconds.
    func waitForAudio(timeout: Double) -> UInt64? {
        let end = DispatchTime.now().uptimeNanoseconds + UInt64(timeout * 1e9)
        while DispatchTime.now().uptimeNanoseconds < end {
            if readAvailable() > 0 { return DispatchTime.now().uptimeNanoseconds }
            usleep(200)
        }
        return nil
    }

    private func readAvailable() -> Int {
        var total = 0
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress!, $0.count) }
            guard count > 0 else { return total }
            total += count
        }
    }
}

/// `scripts/latency-proxy`: 50 ms per request and a byte count, in front of a local server.
final class LatencyProxy {
    private let process = Process()
    private let directory = TemporaryDirectory("nimbus-bench-proxy")
    let port: Int

    /// `rate`: bytes per second of the line back to the clients (none: as fast as loopback).
    init(targetPort: Int, milliseconds: Int, rate: Int? = nil) throws {
        let state = directory.file("state.json")
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = [Fixtures.repositoryRoot + "/scripts/latency-proxy", String(targetPort), String(milliseconds), state]
            + (rate.map { [String($0)] } ?? [])
        try process.run()
        guard waitUntil({ FileManager.default.fileExists(atPath: state) }),
            let data = FileManager.default.contents(atPath: state),
            let json = try JSONSerialization.jsonObject(with: data) as? [String: Int], let port = json["port"]
        else { throw BenchFailure("the latency proxy did not start") }
        self.port = port
    }

    deinit { stop() }

    func stop() {
        if process.isRunning {
            process.terminate()
            process.waitUntilExit()
        }
    }

    /// Bytes sent to clients (the count file is refreshed five times a second).
    var bytes: Int {
        Thread.sleep(forTimeInterval: 0.3)
        guard let data = FileManager.default.contents(atPath: directory.file("state.json")),
            let json = try? JSONSerialization.jsonObject(with: data) as? [String: Int]
        else { return 0 }
        return json["bytes"] ?? 0
    }
}

typealias BenchFailure = DomainError<BenchReport>
