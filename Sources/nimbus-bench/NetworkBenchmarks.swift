import Foundation
import NimbusHarness
import NimbusSupport

/// Figures of songs read over a network that issue 22 asked for, each against MPD on the same
/// server through the same latency proxy:
/// - first audio of a FLAC never played, from a share mounted with `mount` (rclone's WebDAV
///   server, 50 ms per request) and from the same share as a configured account;
/// - a seek to 1:00:00 of a two-hour MP3 played from a URL over a 2 MB/s line with 50 ms per
///   request: time to audio there and bytes fetched, and the same seek into FLAC, Ogg, Opus
///   and m4a files of the same length (Nimbus alone: MPD's own figures are the MP3's).
struct NetworkBenchmarks {
    let quick: Bool

    func runShare(into report: inout BenchReport) throws {
        guard RcloneWebDAVServer.available else { return }
        let share = TemporaryDirectory("nimbus-bench-rclone")
        for index in 1...4 {
            let wav = share.file("\(index).wav")
            try runTool("sox", ["-n", "-r", "44100", "-c", "2", "-b", "16", wav, "synth", "30", "pinknoise", "vol", "0.4"])
            try runTool("flac", ["-s", "-f", "-o", share.file("\(index).flac"), wav])
            try FileManager.default.removeItem(atPath: wav)
        }
        let server = try RcloneWebDAVServer(root: share.path)
        report.section("share: rclone serve webdav at 50 ms per request, a FLAC never played")
        let mpdProxy = try LatencyProxy(targetPort: server.port, milliseconds: 50)
        let mpdCache = TemporaryDirectory("nimbus-bench-mpdcache")
        let mpdFifo = try FirstAudioProbe(path: share.file("mpd.fifo"))
        let mpd = try ServerProcess(
            .mpd,
            config: "database {\n plugin \"simple\"\n path \"\(mpdCache.file("db"))\"\n cache_directory \"\(mpdCache.path)\"\n}\n"
                + mpdFifo.outputBlock,
            cpu: 1, nullOutput: false)
        _ = try mpd.connect().request("mount slow http://127.0.0.1:\(mpdProxy.port)/")
        try mpd.waitForDatabase(songs: 4, timeout: 600)

        // Nimbus twice: the share mounted by a client, then as a configured account.
        let mountProxy = try LatencyProxy(targetPort: server.port, milliseconds: 50)
        let mountFifo = try FirstAudioProbe(path: share.file("mount.fifo"))
        let mounted = try ServerProcess(.nimbus, config: mountFifo.outputBlock, cpu: 1, nullOutput: false)
        _ = try mounted.connect().request("mount slow http://127.0.0.1:\(mountProxy.port)/")
        try mounted.waitForDatabase(songs: 4, timeout: 600)
        let accountProxy = try LatencyProxy(targetPort: server.port, milliseconds: 50)
        let accountFifo = try FirstAudioProbe(path: share.file("account.fifo"))
        let account = try ServerProcess(
            .nimbus, config: "cloud {\n name \"slow\"\n type \"webdav\"\n url \"http://127.0.0.1:\(accountProxy.port)/\"\n}\n" + accountFifo.outputBlock,
            cpu: 1, nullOutput: false)
        try account.waitForDatabase(songs: 4, timeout: 600)

        var timings: [String: [(audio: Double, elapsed: Double)]] = [:]
        for index in 1...3 {
            timings["mpd", default: []].append(try mpdFifo.time(mpd, "slow/\(index).flac"))
            timings["mount", default: []].append(try mountFifo.time(mounted, "slow/\(index).flac"))
            timings["account", default: []].append(try accountFifo.time(account, "slow/\(index).flac"))
        }
        func median(_ key: String, _ pick: ((audio: Double, elapsed: Double)) -> Double) -> Double {
            timings[key]!.map(pick).sorted()[1] * 1000
        }
        for (label, key) in [("mounted", "mount"), ("account", "account")] {
            report.add(Figure(name: "first audio, \(label)", unit: "ms", nimbus: median(key, \.audio), mpd: median("mpd", \.audio), better: .lower))
            report.add(
                Figure(name: "elapsed > 0 after play, \(label)", unit: "ms", nimbus: median(key, \.elapsed), mpd: median("mpd", \.elapsed),
                    better: .lower))
        }
    }

    func runSeek(into report: inout BenchReport) throws -> [String] {
        let seconds = quick ? 1200 : 7200
        let target = seconds / 2
        let files = TemporaryDirectory("nimbus-bench-episode")
        let wav = files.file("episode.wav")
        try runTool("sox", ["-n", "-r", "16000", "-c", "1", "-b", "16", wav, "synth", String(seconds), "sine", "300", "vol", "0.3"])
        let server = try HTTPFileServer()
        let episodes: [(String, String, [String])] = [
            ("episode.mp3", "lame", ["--quiet", "-b", "32", "--cbr", wav]),
            ("episode.flac", "flac", ["-s", "-f", wav, "-o"]),
            ("episode.ogg", "oggenc", ["-Q", "-q", "0", wav, "-o"]),
            ("episode.opus", "opusenc", ["--quiet", "--bitrate", "32", wav]),
            ("episode.m4a", "ffmpeg", ["-hide_banner", "-loglevel", "error", "-y", "-i", wav, "-c:a", "aac", "-b:a", "32k"]),
        ]
        for (name, tool, arguments) in episodes {
            try runTool(tool, arguments + [files.file(name)])
            try server.put(name, Array(try Data(contentsOf: URL(fileURLWithPath: files.file(name)))))
        }
        try FileManager.default.removeItem(atPath: wav)
        let label = seconds == 7200 ? "1:00:00 of 2:00:00" : "\(target / 60):00 of \(seconds / 60):00"
        report.section("seek to \(label) from a URL, 2 MB/s line, 50 ms per request")
        var notes: [String] = []
        var mp3: (Double, Double, Int)?
        for (name, _, _) in episodes {
            let size = try FileManager.default.attributesOfItem(atPath: files.file(name))[.size] as? Int ?? 1
            let proxy = try LatencyProxy(targetPort: Int(server.url.split(separator: ":").last!)!, milliseconds: 50, rate: 2_000_000)
            let url = "http://127.0.0.1:\(proxy.port)/\(name)"
            let ours = try seek(.nimbus, url: url, target: target, proxy: proxy)
            if name.hasSuffix(".mp3") {
                mp3 = (ours.seconds, ours.bytes, size)
                let mpdProxy = try LatencyProxy(targetPort: Int(server.url.split(separator: ":").last!)!, milliseconds: 50, rate: 2_000_000)
                let theirs = try seek(.mpd, url: "http://127.0.0.1:\(mpdProxy.port)/\(name)", target: target, proxy: mpdProxy)
                report.add(Figure(name: "MP3: seek to audio there", unit: "s", nimbus: ours.seconds, mpd: theirs.seconds, better: .lower))
                report.add(Figure(name: "MP3: bytes fetched for it", unit: "KiB", nimbus: ours.bytes / 1024, mpd: theirs.bytes / 1024, better: .lower))
                // The same episode as a podcast subscription: a song of the library, through the cache.
                let feedProxy = try LatencyProxy(targetPort: Int(server.url.split(separator: ":").last!)!, milliseconds: 50, rate: 2_000_000)
                try server.put("feed.xml", """
                    <rss><channel><title>Bench Show</title><item><guid>1</guid><title>Long</title>
                    <pubDate>Wed, 02 Dec 2026 07:00:00 +0000</pubDate><enclosure url="http://127.0.0.1:\(feedProxy.port)/\(name)"/></item>
                    </channel></rss>
                    """)
                let episode = try seek(.nimbus, url: "podcasts/Bench Show/2026-12-02 - Long.mp3", target: target, proxy: feedProxy) { client in
                    _ = try client.request("podcastsubscribe \"\(server.url)/feed.xml\"")
                    guard waitUntil(timeout: 600, { (try? client.request("stats"))?.contains("songs: 1") == true }) else {
                        throw BenchFailure("the podcast episode never entered the library")
                    }
                }
                report.add(Figure(name: "podcast episode: seek to audio there", unit: "s", nimbus: episode.seconds, mpd: theirs.seconds, better: .lower))
                report.add(Figure(name: "podcast episode: bytes fetched for it", unit: "KiB", nimbus: episode.bytes / 1024, mpd: theirs.bytes / 1024, better: .lower))
                report.add(Figure(name: "podcast episode: bytes to replay it", unit: "KiB", nimbus: episode.replay / 1024, mpd: theirs.replay / 1024, better: .lower))
            } else {
                notes.append(
                    String(
                        format: "seek into %@ from a URL: %.2f s, %.0f KiB (%.2f%% of the file)", name, ours.seconds, ours.bytes / 1024,
                        ours.bytes / Double(size) * 100))
            }
        }
        if let (time, bytes, size) = mp3 {
            notes.insert(String(format: "MP3 seek: %.2f s, %.2f%% of the file (goal: under 1 s and 1%%)", time, bytes / Double(size) * 100), at: 0)
        }
        return notes
    }

    /// Queues `url` on a fresh daemon (after `prepare`), waits for its remote tag scan, then
    /// starts it at `target` seconds and times the first `status` at or past it; bytes through
    /// the proxy from the seek until then; and the bytes of doing it all again after a stop
    /// (a replay: what is cached is not fetched again).
    private func seek(
        _ kind: ServerProcess.Kind, url: String, target: Int, proxy: LatencyProxy, prepare: (LineClient) throws -> Void = { _ in }
    ) throws -> (seconds: Double, bytes: Double, replay: Double) {
        let daemon = try ServerProcess(kind, cpu: 1)
        let client = try daemon.connect(timeout: 600)
        try prepare(client)
        _ = try client.request("add \"\(url)\"")
        Thread.sleep(forTimeInterval: 2)
        var results: [(Double, Double)] = []
        for _ in 0..<2 {
            let before = proxy.bytes
            let start = DispatchTime.now().uptimeNanoseconds
            _ = try client.request("seek 0 \(target)")
            var reached = false
            while DispatchTime.now().uptimeNanoseconds - start < 600_000_000_000 {
                let elapsed = try client.request("status").first { $0.hasPrefix("elapsed: ") }.flatMap { Double($0.dropFirst(9)) } ?? 0
                if elapsed > Double(target) {
                    reached = true
                    break
                }
                usleep(2000)
            }
            let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
            let bytes = Double(proxy.bytes - before)
            // Listening on a little, as a person would: the block being fetched completes and
            // stays in the cache (a transfer cut by an instant stop keeps nothing).
            Thread.sleep(forTimeInterval: 2)
            _ = try client.request("stop")
            guard reached else { throw BenchFailure("\(kind) never played \(url) at \(target) s") }
            results.append((seconds, bytes))
        }
        daemon.stop()
        return (results[0].0, results[0].1, results[1].1)
    }
}
