import Foundation
import NimbusHarness
import XCTest

/// An output thread keeps real time: once its device is open it neither allocates nor frees
/// (the allocator's locks are shared with every thread), however the sound settings change
/// meanwhile — the equalizer's filters are built on the control thread and handed over. The
/// real daemon runs with a preloaded counter of allocator calls per thread
/// (Scripts/count_allocations.c), playing through the ALSA `file` plugin and two paced null
/// outputs whose chains resample, remap channels, dither and scale volume, while presets,
/// balance, crossfeed, bypass and volume change forty times.
final class OutputAllocationTests: XCTestCase {
    private struct Counts {
        var allocations: UInt64
        var frees: UInt64
    }

    /// The allocator calls of thread `tid`, from the file the preloaded counter maps.
    private func counts(_ path: String, tid: Int) throws -> Counts {
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        let offset = (tid % 65536) * 32
        func word(_ index: Int) -> UInt64 { data.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: offset + index * 8, as: UInt64.self) } }
        XCTAssertEqual(word(0), UInt64(tid), "the slot of thread \(tid) is its own")
        return Counts(allocations: word(1), frees: word(2))
    }

    /// Thread ids by kernel name.
    private func threads(_ pid: Int32) -> [String: [Int]] {
        var named: [String: [Int]] = [:]
        for task in (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? [] {
            guard let tid = Int(task), let comm = try? String(contentsOfFile: "/proc/\(pid)/task/\(task)/comm", encoding: .utf8) else { continue }
            named[comm.trimmingCharacters(in: .newlines), default: []].append(tid)
        }
        return named
    }

    private func elapsed(_ client: LineClient) throws -> Double {
        let line = try client.request("status").first { $0.hasPrefix("elapsed: ") }
        return Double(line?.dropFirst("elapsed: ".count) ?? "") ?? 0
    }

    func testOutputThreadsAllocateNothingWhileTheSoundChanges() throws {
        let music = TemporaryDirectory("nimbus-allocations")
        let library = music.file("count_allocations.so")
        try runTool("cc", ["-O2", "-shared", "-fPIC", "-o", library, Fixtures.repositoryRoot + "/Tests/DaemonTests/Scripts/count_allocations.c"])
        let countsPath = music.file("counts")
        try runTool("sox", ["-n", "-r", "44100", "-b", "24", "-c", "2", music.file("tone.flac"), "synth", "40", "sine", "300-3000", "vol", "0.5"])
        let capture = ALSACapture(in: music, name: "capture")
        let config = ALSACapture.outputBlock(name: "alsa", format: "48000:16:2", mixer: "software") + """

            audio_output {
                type "null"
                name "paced"
                mixer_type "software"
                format "96000:24:1"
            }
            audio_output {
                type "null"
                name "wide"
                format "32000:32:2"
            }
            """
        let daemon = try ServerProcess(
            .nimbus, config: config, musicDirectory: music.path, nullOutput: false,
            environment: capture.environment.merging(["LD_PRELOAD": library, "NIMBUS_ALLOCATION_COUNTS": countsPath]) { $1 })
        try daemon.waitForDatabase(songs: 1)
        let client = try daemon.connect()
        let presets = [
            ["Preamp: -4 dB", "Filter 1: ON PK Fc 1000 Hz Gain -6 dB Q 1.41", "Filter 2: ON PK Fc 5000 Hz Gain 4 dB Q 2"],
            ["Filter 1: ON LSC Fc 200 Hz Gain 5 dB Q 0.71", "Filter 2: ON HSC Fc 8000 Hz Gain -3 dB Q 0.71", "Filter 3: ON HP Fc 40 Hz Q 0.7"],
        ]
        for (index, lines) in presets.enumerated() {
            XCTAssertEqual(try client.request("eqimport p\(index) " + lines.map { "\"\($0)\"" }.joined(separator: " ")), ["OK"])
        }
        for output in ["alsa", "paced", "wide"] { XCTAssertEqual(try client.request("eqset \(output) p0"), ["OK"]) }
        for command in ["add tone.flac", "play"] { XCTAssertEqual(try client.request(command), ["OK"], command) }
        // Warmed up: every device open, every buffer grown to its size.
        XCTAssertTrue(waitUntil(timeout: 20) { ((try? self.elapsed(client)) ?? 0) > 2 }, "playback did not start")

        let pid = daemon.process.processIdentifier
        let named = threads(pid)
        let outputs = ["output-alsa", "output-paced", "output-wide"].compactMap { name in named[name].map { (name, $0) } }
        XCTAssertEqual(outputs.count, 3, "one thread per output: \(named.keys.sorted())")
        let core = try XCTUnwrap(named["nimbus-core"]?.first)
        var before: [Int: Counts] = [:]
        for tid in outputs.flatMap(\.1) + [core] { before[tid] = try counts(countsPath, tid: tid) }

        let changes = [
            "eqset %@ p1", "eqbalance %@ -40", "eqcrossfeed %@ cmoy", "eqset %@ p0", "eqbypass %@ 1", "eqbypass %@ 0",
            "eqbalance %@ 30", "eqcrossfeed %@ off",
        ]
        var heard = try elapsed(client)
        for round in 0..<40 {
            let output = ["alsa", "paced", "wide"][round % 3]
            XCTAssertEqual(try client.request(String(format: changes[round % changes.count], output)), ["OK"], "round \(round)")
            XCTAssertEqual(try client.request("setvol \(60 + round % 40)"), ["OK"])
            // The outputs play on between changes, so each is taken up on the output threads.
            let last = heard
            XCTAssertTrue(waitUntil(timeout: 5) { ((try? self.elapsed(client)) ?? 0) > last + 0.05 }, "playback stalled")
            heard = try elapsed(client)
        }
        XCTAssertTrue(try client.request("status").contains("state: play"), "still playing: the window measured real playback")

        for (name, tids) in outputs {
            for tid in tids {
                let after = try counts(countsPath, tid: tid), start = try XCTUnwrap(before[tid])
                XCTAssertEqual(after.allocations - start.allocations, 0, "\(name) allocated while the settings changed")
                XCTAssertEqual(after.frees - start.frees, 0, "\(name) freed while the settings changed")
            }
        }
        // The counter sees what allocates: the core thread answered eighty commands.
        let coreAfter = try counts(countsPath, tid: core)
        XCTAssertGreaterThan(coreAfter.allocations - (before[core]?.allocations ?? 0), 80, "the counter counts")
    }
}
