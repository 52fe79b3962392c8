import Foundation
import Glibc
import NimbusHarness

/// Issue 15's httpd figures against MPD's httpd output with the same block in the same run:
/// daemon CPU per second of audio for each encoder with 1 and 20 listeners (each a `curl`
/// reading to /dev/null), and the time from `play` to the first byte at a listener that was
/// already connected.
struct HTTPDBenchmarks {
    let quick: Bool

    func run(into report: inout BenchReport) throws -> [String] {
        let music = TemporaryDirectory("nimbus-bench-httpd")
        let wav = music.file("source.wav")
        try runTool("sox", ["-n", "-r", "44100", "-c", "2", "-b", "16", wav, "synth", "120", "pinknoise", "vol", "0.5"])
        try runTool("flac", ["-s", "-f", "-o", music.file("noise.flac"), wav])
        try FileManager.default.removeItem(atPath: wav)
        report.section("httpd output, paced playback of FLAC (CPU of the daemon per second of audio)")
        let window = quick ? 3.0 : 8.0
        let encoders = [("vorbis", "quality \"5\""), ("opus", "bitrate \"128000\""), ("lame", "bitrate \"192\""), ("flac", ""), ("wave", "")]
        for (encoder, setting) in encoders {
            for listeners in [1, 20] {
                var cpu: [Double] = []
                for kind in [ServerProcess.Kind.nimbus, .mpd] {
                    let port = freePort()
                    let daemon = try ServerProcess(kind, config: block(encoder, setting, port: port), cpu: 1, musicDirectory: music.path, nullOutput: false)
                    try daemon.waitForDatabase(songs: 1, timeout: 60)
                    let client = try daemon.connect()
                    _ = try client.request("add noise.flac")
                    _ = try client.request("play")
                    Thread.sleep(forTimeInterval: 0.5)
                    let readers = try (0..<listeners).map { _ in try listener(port: port) }
                    Thread.sleep(forTimeInterval: 1)
                    let before = ProcessStats.cpuMicroseconds(daemon.process.processIdentifier)
                    Thread.sleep(forTimeInterval: window)
                    cpu.append((ProcessStats.cpuMicroseconds(daemon.process.processIdentifier) - before) / 1000 / window)
                    for reader in readers { reader.terminate() }
                    _ = daemon.stop()
                }
                report.add(
                    Figure(name: "\(encoder), \(listeners) listener\(listeners == 1 ? "" : "s")", unit: "ms/s", nimbus: cpu[0], mpd: cpu[1], better: .lower))
            }
        }
        var first: [Double] = []
        do {
            for kind in [ServerProcess.Kind.nimbus, .mpd] {
                let port = freePort()
                let daemon = try ServerProcess(kind, config: block("vorbis", "quality \"5\"", port: port), cpu: 1, musicDirectory: music.path, nullOutput: false)
                try daemon.waitForDatabase(songs: 1, timeout: 60)
                first.append(try firstByte(daemon, port: port))
                _ = daemon.stop()
            }
        } catch {
            return ["httpd first byte not measured: \(error)"]
        }
        report.add(Figure(name: "play to first byte at a listener (vorbis)", unit: "ms", nimbus: first[0] * 1000, mpd: first[1] * 1000, better: .lower))
        return []
    }

    private func block(_ encoder: String, _ setting: String, port: Int) -> String {
        "audio_output {\n type \"httpd\"\n name \"bench\"\n port \"\(port)\"\n bind_to_address \"127.0.0.1\"\n encoder \"\(encoder)\"\n \(setting)\n format \"44100:16:2\"\n}"
    }

    private func listener(port: Int) throws -> Process {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/curl")
        process.arguments = ["-s", "-o", "/dev/null", "http://127.0.0.1:\(port)/"]
        try process.run()
        return process
    }

    /// Seconds from `play` to the first audio byte at a listener that connects right after
    /// it (MPD's httpd only listens while its output is open, so both are timed this way).
    private func firstByte(_ daemon: ServerProcess, port: Int) throws -> Double {
        let client = try daemon.connect()
        _ = try client.request("add noise.flac")
        let start = DispatchTime.now().uptimeNanoseconds
        _ = try client.request("play")
        var socket: LineClient?
        while socket == nil, DispatchTime.now().uptimeNanoseconds - start < 10_000_000_000 {
            socket = try? LineClient(.tcp(host: "127.0.0.1", port: port), timeout: 10)
            if socket == nil { usleep(1000) }
        }
        guard let socket else { throw BenchFailure("no listener could connect to port \(port)") }
        try socket.send("GET / HTTP/1.0\r\n\r\n")
        var seen: [UInt8] = []
        while !(seen.count >= 4 && seen.suffix(4) == [13, 10, 13, 10]) {
            var byte: UInt8 = 0
            guard recv(socket.fd, &byte, 1, 0) == 1 else { throw BenchFailure("the stream closed before its headers") }
            seen.append(byte)
        }
        var byte: UInt8 = 0
        guard recv(socket.fd, &byte, 1, 0) == 1 else { throw BenchFailure("no audio") }
        return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
    }
}
