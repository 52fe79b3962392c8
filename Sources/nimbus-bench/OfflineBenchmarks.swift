import Foundation
import NimbusHarness
import NimbusSupport

/// Issue 13's figures. MPD has no offline pins, so the reference column is what a user would
/// compare with: `curl` fetching the same files one after another from the same server in the
/// same run (download throughput), and our own idle daemon (time to first audio while pins
/// download). Both directly and behind the 50 ms-per-request proxy.
struct OfflineBenchmarks {
    let quick: Bool

    func run(into report: inout BenchReport) throws -> [String] {
        let share = TemporaryDirectory("nimbus-bench-offline")
        let count = quick ? 10 : 50
        let folder = share.file("pinned")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let first = folder + "/001.wav"
        try runTool("sox", ["-n", "-r", "44100", "-c", "2", "-b", "16", first, "synth", "23.7", "pinknoise", "vol", "0.4"])
        for index in 2...count { try FileManager.default.copyItem(atPath: first, toPath: folder + String(format: "/%03d.wav", index)) }
        try FileManager.default.createDirectory(atPath: share.file("play"), withIntermediateDirectories: true)
        for index in 1...4 {
            let wav = share.file("play/\(index).wav")
            try runTool("sox", ["-n", "-r", "44100", "-c", "2", "-b", "16", wav, "synth", "60", "pinknoise", "vol", "0.4"])
            try runTool("flac", ["-s", "-f", "-o", share.file("play/\(index).flac"), wav])
            try FileManager.default.removeItem(atPath: wav)
        }
        let bytes = Double(count) * Double((try FileManager.default.attributesOfItem(atPath: first)[.size] as? Int) ?? 0)
        let server = try WebDAVServer(root: share.path, authenticated: false)
        report.section(String(format: "offline: pinning %.0f MB (%d files) over WebDAV; reference column: curl / idle", bytes / 1e6, count))
        let names = (1...count).map { String(format: "pinned/%03d.wav", $0) }

        // Directly, then over 50 ms per request.
        let direct = try throughput(port: server.port, names: names, bytes: bytes, songs: count + 4)
        report.add(Figure(name: "pin download vs curl, local server", unit: "MB/s", nimbus: direct.ours, mpd: direct.curl, better: .higher))
        let proxy = try LatencyProxy(targetPort: server.port, milliseconds: 50)
        let slow = try throughput(port: proxy.port, names: names, bytes: bytes, songs: count + 4)
        report.add(Figure(name: "pin download vs curl, 50 ms/request", unit: "MB/s", nimbus: slow.ours, mpd: slow.curl, better: .higher))

        // First audio of an unpinned song while four pinned downloads run, against idle: each
        // response at 2 MB/s (a home line's share), so the pins are still downloading.
        let probe = try FirstAudioProbe(path: share.file("nimbus.fifo"))
        let line = try WebDAVServer(root: share.path, authenticated: false, rate: 2_000_000)
        let ttfaProxy = try LatencyProxy(targetPort: line.port, milliseconds: 50)
        let config = account(port: ttfaProxy.port) + "offline_transfers \"4\"\n" + probe.outputBlock
        let daemon = try ServerProcess(.nimbus, config: config, cpu: 1, nullOutput: false)
        try daemon.waitForDatabase(songs: count + 4, timeout: 600)
        // From the start (its head was read by indexing) and from 0:45 (bytes nobody fetched).
        let idle = try firstAudio(daemon, probe, "dav/play/1.flac")
        let idleSeek = try firstAudio(daemon, probe, "dav/play/3.flac", start: "seek 0 45")
        _ = try daemon.connect().request("pin dav/pinned")
        Thread.sleep(forTimeInterval: 1)
        let busy = try firstAudio(daemon, probe, "dav/play/2.flac")
        let busySeek = try firstAudio(daemon, probe, "dav/play/4.flac", start: "seek 0 45")
        let running = try daemon.connect().request("listpins").contains("state: downloading")
        report.add(Figure(name: "first audio, 4 pins downloading vs idle", unit: "ms", nimbus: busy * 1000, mpd: idle * 1000, better: .lower))
        report.add(
            Figure(name: "first audio from 0:45, pins downloading vs idle", unit: "ms", nimbus: busySeek * 1000, mpd: idleSeek * 1000, better: .lower))
        if !running { return ["the pins finished before the busy measurements ended: the busy figures are too kind"] }
        return []
    }

    private func account(port: Int) -> String {
        "cloud {\n name \"dav\"\n type \"webdav\"\n url \"http://127.0.0.1:\(port)/dav/\"\n}\n"
    }

    /// MB/s of `curl` fetching the files one after another, and of a daemon pinning them.
    private func throughput(port: Int, names: [String], bytes: Double, songs: Int) throws -> (ours: Double, curl: Double) {
        let urls = names.map { "http://127.0.0.1:\(port)/dav/\($0)" }
        let curlSeconds = try seconds {
            try runTool("/usr/bin/curl", ["-s", "-f"] + urls.flatMap { ["-o", "/dev/null", $0] })
        }
        let daemon = try ServerProcess(.nimbus, config: account(port: port), cpu: 1)
        try daemon.waitForDatabase(songs: songs, timeout: 600)
        let client = try daemon.connect()
        let oursSeconds = try seconds {
            _ = try client.request("pin dav/pinned")
            guard waitUntil(timeout: 1800, { (try? client.request("listpins"))?.contains("state: completed") == true }) else {
                throw BenchFailure("the pin never completed")
            }
        }
        _ = daemon.stop()
        return (bytes / oursSeconds / 1e6, bytes / curlSeconds / 1e6)
    }

    private func firstAudio(_ daemon: ServerProcess, _ probe: FirstAudioProbe, _ song: String, start command: String = "play") throws
        -> Double
    {
        let client = try probe.prepare(daemon, song)
        let start = DispatchTime.now().uptimeNanoseconds
        _ = try client.request(command)
        guard let heard = probe.waitForAudio(timeout: 120) else { throw BenchFailure("no audio from \(song)") }
        return Double(heard - start) / 1e9
    }
}
