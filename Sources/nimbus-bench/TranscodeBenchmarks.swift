import Foundation
import Glibc
import NimbusHarness
import NimbusSupport

/// Issue 34's figures for transcoding: a 5-minute FLAC made into Opus 128 kbit/s and MP3
/// 192 kbit/s over `/rest/stream`, the daemon's CPU time against the `ffmpeg` command line
/// doing the same encode; the time to the first byte of a transcoded stream and of a
/// `timeOffset=240` seek; eight phones transcoding at once while the box plays through a
/// FIFO read at real time (underruns counted). Every request is for a song not yet
/// transcoded (hard links of one file, each its own song), so none comes from the cache.
struct TranscodeBenchmarks {
    let quick: Bool

    func run(into report: inout BenchReport) throws -> [String] {
        report.section("transcoding for phones (5-minute FLAC)")
        let music = TemporaryDirectory("nimbus-bench-transcode")
        let seconds = quick ? 60 : 300
        let wav = music.file("source.wav")
        // Two tones gliding over pink noise: as hard to encode as music, unlike silence.
        try runTool("sox", ["-D", "-n", "-r", "44100", "-c", "2", "-b", "16", wav, "synth", String(seconds), "pinknoise", "vol", "0.25",
                            "synth", String(seconds), "sine", "mix", "200-2000", "synth", String(seconds), "sine", "amod", "0.5"])
        let source = music.file("song000.flac")
        try runTool("flac", ["-s", "-f", "-o", source, wav])
        try FileManager.default.removeItem(atPath: wav)
        let copies = quick ? 24 : 40
        for index in 1..<copies { try FileManager.default.linkItem(atPath: source, toPath: music.file(String(format: "song%03d.flac", index))) }
        let fifo = music.file("box.fifo")
        mkfifo(fifo, 0o666)
        let web = freePort()
        let config = """
            web {
                port "\(web)"
            }
            \(SubsonicBenchmarks.user)
            audio_output {
                type "fifo"
                name "box"
                path "\(fifo)"
                format "44100:16:2"
            }
            """
        let cpu = sysconf(Int32(_SC_NPROCESSORS_ONLN)) > 1 ? 1 : 0
        let nimbus = try ServerProcess(.nimbus, config: config, cpu: cpu, musicDirectory: music.path, nullOutput: false)
        try nimbus.waitForDatabase(songs: copies, timeout: 300)
        let http = APIClient(port: web)
        var ids = try (0..<copies).map { try http.songID(String(format: "song%03d.flac", $0)) }
        func next() -> String { ids.removeLast() }
        let pid = nimbus.process.processIdentifier
        var notes: [String] = []

        for (format, bitrate, codec) in [("opus", 128, "libopus"), ("mp3", 192, "libmp3lame")] {
            var ours: [Double] = [], theirs: [Double] = []
            for _ in 0..<(quick ? 1 : 3) {
                let before = processCPUSeconds(pid)
                _ = try runTool("curl", ["-s", "-o", "/dev/null", url(web, next(), "format=\(format)&maxBitRate=\(bitrate)")])
                ours.append(processCPUSeconds(pid) - before)
                let container = format == "opus" ? "ogg" : "mp3"
                // On the daemon's core, as every pair of daemons in the bench is compared (the
                // cores of a virtual machine differ by a few per cent).
                theirs.append(try Self.childCPU {
                    _ = try runTool("taskset", ["-c", String(cpu), "ffmpeg", "-nostdin", "-v", "error", "-i", source, "-map", "0:a", "-c:a", codec, "-b:a", "\(bitrate)k", "-f", container, "-y", "/dev/null"])
                })
            }
            report.add(Figure(name: "\(format) \(bitrate) kbit/s, CPU (ffmpeg CLI as MPD)", unit: "s", nimbus: Self.median(ours), mpd: Self.median(theirs), better: .lower))
        }

        // Four minutes in (in the quick run's one-minute song, 40 s).
        let seek = quick ? 40 : 240
        var firstBytes: [Double] = [], seeks: [Double] = []
        for _ in 0..<(quick ? 3 : 7) {
            firstBytes.append(try Self.firstByte(port: web, path: path(next(), "format=opus&maxBitRate=128")))
            seeks.append(try Self.firstByte(port: web, path: path(next(), "format=opus&maxBitRate=128&timeOffset=\(seek)")))
        }
        notes.append(String(format: "transcode: first byte of a new Opus transcode after %.1f ms (goal ≤ 100 ms), of a timeOffset=%d seek after %.1f ms (goal ≤ 150 ms); medians of %d",
                            Self.median(firstBytes), seek, Self.median(seeks), firstBytes.count))

        // The box plays while eight phones each pull a new transcode as fast as they can.
        let control = try nimbus.connect()
        _ = try control.request("add song000.flac")
        _ = try control.request("play")
        let phones = (0..<8).map { _ in url(web, next(), "format=opus&maxBitRate=128") }
        let done = DispatchGroup()
        for phone in phones {
            done.enter()
            DaemonThread.start(name: "bench-phone") {
                _ = try? runTool("curl", ["-s", "-o", "/dev/null", phone])
                done.leave()
            }
        }
        let started = Date()
        let underruns = FifoReader(path: fifo).run(seconds: quick ? 8 : 20)
        let finished = done.wait(timeout: .now() + 600) == .success
        notes.append(String(format: "transcode: 8 simultaneous transcodes while the box plays: %d underruns on its output over %.0f s (goal: none)%@",
                            underruns, Date().timeIntervalSince(started), finished ? "" : "; the transcodes did not finish"))
        // A fresh connection: waiting for eight 5-minute transcodes outlasts the daemon's
        // 60 s connection_timeout, which closed the first one.
        _ = try nimbus.connect().request("stop")
        withExtendedLifetime(control) {}
        nimbus.stop()
        withExtendedLifetime(music) {}
        return notes
    }

    private func url(_ port: Int, _ id: String, _ query: String) -> String { "http://127.0.0.1:\(port)" + path(id, query) }
    private func path(_ id: String, _ query: String) -> String { "/rest/stream?u=bench&p=bench&c=bench&id=\(id)&\(query)" }

    /// Seconds of CPU the children waited for in `body` used.
    static func childCPU(_ body: () throws -> Void) throws -> Double {
        func total() -> Double {
            var usage = rusage()
            getrusage(RUSAGE_CHILDREN.rawValue, &usage)
            return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
        }
        let before = total()
        try body()
        return total() - before
    }

    /// Milliseconds from sending a GET to the first byte of its body, then hangs up, as a
    /// phone skipping on does.
    static func firstByte(port: Int, path: String) throws -> Double {
        guard let fd = connectLoopback(port: port) else { throw APIFailure(description: "connect to \(port) failed") }
        defer { close(fd) }
        let start = DispatchTime.now().uptimeNanoseconds
        let request = Array("GET \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n".utf8)
        _ = request.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, 0) }
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 16384)
        while true {
            let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            guard count > 0 else { throw APIFailure(description: "no body from \(path)") }
            received += buffer[0..<count]
            if let end = received.firstRange(of: Array("\r\n\r\n".utf8)), received.count > end.upperBound {
                guard received.starts(with: Array("HTTP/1.1 200".utf8)) else {
                    throw APIFailure(description: "\(path): \(String(decoding: received.prefix(80), as: UTF8.self))")
                }
                return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6
            }
        }
    }

    static func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }
}
