import Foundation
import Glibc
import NimbusHarness

/// Issue 61's figures for the loudness analysis: the daemon measuring a folder of FLAC and MP3
/// songs (its CPU seconds per song and × real time per core) against Debian's loudgain on the
/// same files and core, and how many times a FIFO output read at real time ran dry while the
/// pass ran beside playback.
struct AnalysisBenchmarks {
    let quick: Bool

    func run(into report: inout BenchReport) throws -> [String] {
        report.section("loudness analysis (EBU R128, libebur128)")
        let music = TemporaryDirectory("nimbus-bench-analysis")
        let seconds = quick ? 30 : 240
        let count = quick ? 6 : 12
        let wav = music.file("source.wav")
        try runTool("sox", ["-D", "-n", "-r", "44100", "-c", "2", "-b", "16", wav, "synth", String(seconds), "pinknoise", "vol", "0.3",
                            "synth", String(seconds), "sine", "mix", "200-2000"])
        var files: [String] = []
        for index in 0..<count {
            let flac = music.file(String(format: "flac/song%02d.flac", index)), mp3 = music.file(String(format: "mp3/song%02d.mp3", index))
            try FileManager.default.createDirectory(atPath: music.file("flac"), withIntermediateDirectories: true)
            try FileManager.default.createDirectory(atPath: music.file("mp3"), withIntermediateDirectories: true)
            // Each file its own bytes (a different gain), so nothing is shared between them.
            let gained = music.file("gained.wav")
            try runTool("sox", [wav, gained, "vol", String(format: "%.2f", 0.5 + Double(index) * 0.04)])
            try runTool("flac", ["-s", "-f", "-o", flac, gained])
            try runTool("lame", ["--quiet", "-b", "192", gained, mp3])
            files += [flac, mp3]
        }
        try? FileManager.default.removeItem(atPath: wav)
        try? FileManager.default.removeItem(atPath: music.file("gained.wav"))
        let totalAudio = Double(seconds * files.count)
        let cpu = sysconf(Int32(_SC_NPROCESSORS_ONLN)) > 1 ? 1 : 0

        // loudgain on the same core, every file (its album mode reads them all).
        var usage = rusage()
        getrusage(__rusage_who_t(RUSAGE_CHILDREN.rawValue), &usage)
        let before = Double(usage.ru_utime.tv_sec) + Double(usage.ru_utime.tv_usec) / 1e6 + Double(usage.ru_stime.tv_sec) + Double(usage.ru_stime.tv_usec) / 1e6
        _ = try? runTool("/usr/bin/taskset", ["-c", String(cpu), "/usr/bin/loudgain", "-q", "-O"] + files)
        getrusage(__rusage_who_t(RUSAGE_CHILDREN.rawValue), &usage)
        let after = Double(usage.ru_utime.tv_sec) + Double(usage.ru_utime.tv_usec) / 1e6 + Double(usage.ru_stime.tv_sec) + Double(usage.ru_stime.tv_usec) / 1e6
        let loudgainCPU = after - before

        let fifo = music.file("box.fifo")
        mkfifo(fifo, 0o666)
        let config = """
            loudness_analysis "yes"
            audio_output {
                type "fifo"
                name "box"
                path "\(fifo)"
                format "44100:16:2"
            }
            """
        // The pass starts with the library: measure the daemon's CPU from start to idle.
        let nimbus = try ServerProcess(.nimbus, config: config, cpu: cpu, musicDirectory: music.path, nullOutput: false)
        let pid = nimbus.process.processIdentifier
        let started = processCPUSeconds(pid)
        let client = try nimbus.connect()
        let done = waitUntil(timeout: 600) {
            let status = (try? client.request("analysisstatus")) ?? []
            return status.contains("state: idle") && status.contains("measured: \(files.count)")
        }
        guard done else { throw ToolFailure(description: "the analysis did not finish: \(try client.request("analysisstatus"))") }
        let nimbusCPU = processCPUSeconds(pid) - started
        report.add(Figure(name: "CPU per song (loudgain on the same files)", unit: "s", nimbus: nimbusCPU / Double(files.count),
                          mpd: loudgainCPU / Double(files.count), better: .lower))
        report.add(Figure(name: "× real time per core (loudgain)", unit: "×", nimbus: totalAudio / max(nimbusCPU, 0.001),
                          mpd: totalAudio / max(loudgainCPU, 0.001), better: .higher))
        return ["analysis: \(files.count) songs of \(seconds) s (FLAC and MP3 192k); Nimbus \(String(format: "%.2f", nimbusCPU)) s CPU, loudgain \(String(format: "%.2f", loudgainCPU)) s (true peak in both)"]
    }
}
