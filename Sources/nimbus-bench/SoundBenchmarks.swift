import Foundation
import Glibc
import NimbusHarness
import NimbusModel
import NimbusPCM

/// Issue 35's figures: CPU per second of stereo 44.1 kHz audio for libsoxr at each quality
/// (the converter the outputs run, 44.1 → 48 kHz) against `sox … rate -q|-l|-m|-h|-v` doing
/// the same conversion, and for a 10-band equalizer (the output's sound chain) against
/// ffmpeg's `equalizer` filters in double. The tools' cost of reading and writing alone is
/// measured and taken off (ours too: the same conversion without a rate change), so both sides
/// count only the work compared. Ours runs in this process
/// on the thread's CPU clock.
struct SoundBenchmarks {
    let quick: Bool

    func run(into report: inout BenchReport) throws -> [String] {
        report.section("sound: CPU per second of stereo 44.1 kHz audio")
        let folder = TemporaryDirectory("nimbus-bench-sound")
        let seconds = quick ? 20 : 120
        let wav = folder.file("in.wav")
        try runTool("sox", ["-D", "-n", "-r", "44100", "-c", "2", "-b", "24", wav, "synth", String(seconds), "pinknoise", "vol", "0.25"])
        let raw = folder.file("in.raw")
        try runTool("sox", ["-D", wav, "-b", "32", "-e", "signed", "-t", "raw", raw])
        let pcm = try Array(Data(contentsOf: URL(fileURLWithPath: raw)))
        let input = AudioFormat(sampleRate: 44100, sample: .s32, channels: 2)

        let soxBase = try TranscodeBenchmarks.childCPU { _ = try runTool("sox", ["-D", wav, "-e", "float", "-b", "32", "-t", "raw", "/dev/null"]) }
        // Our own read-and-convert cost (32-bit integers to floats, no rate change), taken off too.
        let same = PCMConverter(from: input, to: AudioFormat(sampleRate: 44100, sample: .float, channels: 2))
        let ourBase = Self.threadCPU { Self.feed(pcm, format: input) { same.convert($0, volume: 100) { _ in } } }
        let qualities: [(ResamplerSettings.Quality, String)] = [(.quick, "-q"), (.low, "-l"), (.medium, "-m"), (.high, "-h"), (.veryHigh, "-v")]
        for (quality, flag) in qualities {
            let output = AudioFormat(sampleRate: 48000, sample: .float, channels: 2)
            let converter = FilterChain(from: input, to: output, rates: .soxr(ResamplerSettings(quality: quality, threads: 1)))
            let ours = Self.threadCPU { Self.feed(pcm, format: input) { converter.convert($0, volume: 100) { _ in } } }
            let theirs = try TranscodeBenchmarks.childCPU {
                _ = try runTool("sox", ["-D", wav, "-e", "float", "-b", "32", "-t", "raw", "/dev/null", "rate", flag, "48000"])
            } - soxBase
            report.add(Figure(
                name: "soxr \(quality.rawValue), 44.1 → 48 kHz (sox rate \(flag))", unit: "ms/s", nimbus: max(ours - ourBase, 0) * 1000 / Double(seconds),
                mpd: max(theirs, 0.001) * 1000 / Double(seconds), better: .lower))
        }

        let bands = (0..<10).map { index in
            EqualizerBand(kind: .peaking, frequency: 31.25 * pow(2, Double(index)), gain: index % 2 == 0 ? -3 : 2, q: 1.41)
        }
        let chain = SoundChain()
        chain.update(SoundSettings(presetName: "ten", equalizer: EqualizerPreset(preamp: -2, bands: bands)))
        let float = AudioFormat(sampleRate: 44100, sample: .float, channels: 2)
        let shaped = FilterChain(from: input, to: float, sound: chain)
        let converter = FilterChain(from: input, to: float)
        let ours = Self.threadCPU { Self.feed(pcm, format: input) { shaped.convert($0, volume: 100) { _ in } } }
        let plain = Self.threadCPU { Self.feed(pcm, format: input) { converter.convert($0, volume: 100) { _ in } } }
        let filters = bands.map { "equalizer=f=\($0.frequency):t=q:w=\($0.q):g=\($0.gain):r=f64" }.joined(separator: ",")
        func ffmpeg(_ filter: String) throws -> Double {
            try TranscodeBenchmarks.childCPU {
                _ = try runTool("ffmpeg", ["-nostdin", "-v", "error", "-i", wav, "-af", "aformat=sample_fmts=dblp" + filter, "-f", "null", "-"])
            }
        }
        let theirs = try ffmpeg("," + filters) - ffmpeg("")
        report.add(Figure(
            name: "10-band equalizer (ffmpeg equalizer, double)", unit: "ms/s", nimbus: max(ours - plain, 0) * 1000 / Double(seconds),
            mpd: max(theirs, 0.001) * 1000 / Double(seconds), better: .lower))
        return try spurs() + [try underruns(bands: bands)]
    }

    /// The worst spur, image or alias of a −6 dBFS linear sweep converted by Nimbus's
    /// converter (libsoxr) and by `sox rate`, measured by the suite's own script
    /// (Tests/DaemonTests/Scripts/sound_measure.py, numpy) — the quality beside the cost.
    private func spurs() throws -> [String] {
        let folder = TemporaryDirectory("nimbus-bench-sweep")
        let script = Fixtures.repositoryRoot + "/Tests/DaemonTests/Scripts/sound_measure.py"
        func measure(_ arguments: [String]) throws -> Double {
            let output = try runTool("/usr/bin/python3", [script] + arguments)
            let json = try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [String: Any]
            return json?["worst_db"] as? Double ?? .nan
        }
        var notes: [String] = []
        for (from, to) in [(44100, 48000), (96000, 44100)] {
            let raw = folder.file("sweep\(from).raw")
            _ = try runTool("/usr/bin/python3", [script, "make-sweep", raw, "\(from)", "20", "\(from / 2)", "4"])
            let pcm = try Array(Data(contentsOf: URL(fileURLWithPath: raw)))
            var line = "sound: worst spur, image or alias of a sweep \(from) → \(to) Hz:"
            for (quality, flag) in [(ResamplerSettings.Quality.high, "-h"), (.veryHigh, "-v")] {
                let input = AudioFormat(sampleRate: UInt32(from), sample: .s32, channels: 2)
                let converter = FilterChain(
                    from: input, to: AudioFormat(sampleRate: UInt32(to), sample: .s32, channels: 2),
                    rates: .soxr(ResamplerSettings(quality: quality, threads: 1)))
                var converted: [UInt8] = []
                Self.feed(pcm, format: input) { converter.convert($0, volume: 100) { converted.append(contentsOf: $0) } }
                converter.flush(volume: 100) { converted.append(contentsOf: $0) }
                let ours = folder.file("ours.raw"), theirs = folder.file("sox.raw")
                try Data(converted).write(to: URL(fileURLWithPath: ours))
                try runTool("sox", ["-t", "raw", "-r", "\(from)", "-e", "signed", "-b", "32", "-c", "2", raw, "-t", "raw", theirs, "rate", flag, "\(to)"])
                let arguments = ["\(to)", "32", "\(from)", "20", "\(from / 2)", "4"]
                line += String(format: " %@ %.1f dB (sox rate %@ %.1f dB);", quality.rawValue, try measure(["sweep", ours] + arguments), flag,
                               try measure(["sweep", theirs] + arguments))
            }
            notes.append(line)
        }
        return notes
    }

    /// The box plays songs of 44.1 and 48 kHz crossfaded into each other (so the crossfade
    /// resamples) with the 10-band equalizer on, to a FIFO read at real time on one core.
    private func underruns(bands: [EqualizerBand]) throws -> String {
        let music = TemporaryDirectory("nimbus-bench-sound-play")
        let length = quick ? 8 : 15
        for index in 0..<4 {
            try runTool("sox", [
                "-D", "-n", "-r", index % 2 == 0 ? "44100" : "48000", "-c", "2", "-b", "24", music.file("song\(index).flac"), "synth",
                String(length), "pinknoise", "vol", "0.25",
            ])
        }
        let fifo = music.file("box.fifo")
        mkfifo(fifo, 0o666)
        let config = "audio_output {\n    type \"fifo\"\n    name \"box\"\n    path \"\(fifo)\"\n    format \"44100:16:2\"\n}"
        let cpu = sysconf(Int32(_SC_NPROCESSORS_ONLN)) > 1 ? 1 : 0
        let nimbus = try ServerProcess(.nimbus, config: config, cpu: cpu, musicDirectory: music.path, nullOutput: false)
        try nimbus.waitForDatabase(songs: 4)
        let control = try nimbus.connect()
        let preset = (["Preamp: -2 dB"] + EqualizerPreset(preamp: -2, bands: bands).lines.dropFirst()).map { "\"\($0)\"" }.joined(separator: " ")
        for command in ["eqimport ten " + preset, "eqset box ten", "crossfade 4"] + (0..<4).map({ "add song\($0).flac" }) + ["play"] {
            _ = try control.request(command)
        }
        let seconds = Double(length * 4 - 12)
        let count = FifoReader(path: fifo).run(seconds: seconds)
        _ = try control.request("stop")
        nimbus.stop()
        return String(format: "sound: %d underruns over %.0f s of playback with the 10-band equalizer and 4 s crossfades across 44.1/48 kHz on one core (goal: none)", count, seconds)
    }

    /// Hands `pcm` over in 4096-frame chunks, as the output thread gets it.
    static func feed(_ pcm: [UInt8], format: AudioFormat, _ body: (UnsafeRawBufferPointer) -> Void) {
        let chunk = 4096 * format.frameBytes
        pcm.withUnsafeBytes { all in
            var start = 0
            while start < all.count {
                body(UnsafeRawBufferPointer(rebasing: all[start..<min(all.count, start + chunk)]))
                start += chunk
            }
        }
    }

    /// Seconds of this thread's CPU `body` used.
    static func threadCPU(_ body: () -> Void) -> Double {
        func now() -> Double {
            var time = timespec()
            clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
            return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
        }
        let start = now()
        body()
        return now() - start
    }
}
