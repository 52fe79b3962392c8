import Foundation
import NimbusAnalysis
import NimbusHarness
import XCTest

/// libebur128 as Nimbus drives it, against Debian's loudgain (the same library, −18 LUFS) on
/// generated songs of known levels: track and album gain and peaks within 0.1 dB.
final class LoudnessMeterTests: XCTestCase {
    /// Reads raw 32-bit float frames made by sox, as the pass feeds decoded audio.
    private func measure(_ path: String, channels: Int, rate: UInt32) throws -> LoudnessMeter {
        let raw = path + ".f32"
        _ = try runTool("sox", [path, "-t", "raw", "-e", "floating-point", "-b", "32", "-L", raw])
        let bytes = try Data(contentsOf: URL(fileURLWithPath: raw))
        let meter = try LoudnessMeter(sampleRate: rate, channels: channels)
        bytes.withUnsafeBytes { raw in meter.add(raw.bindMemory(to: Float.self)) }
        return meter
    }

    /// loudgain's tab-separated answer: each file's and the album's gain and peak.
    private func loudgain(_ files: [String]) throws -> [(gain: Double, peak: Double, loudness: Double)] {
        let text = try runTool("/usr/bin/loudgain", ["-a", "-O", "-q"] + files)
        return text.split(separator: "\n").dropFirst().map { line in
            let fields = line.split(separator: "\t").map(String.init)
            func number(_ index: Int) -> Double { Double(fields[index].split(separator: " ").first ?? "") ?? .nan }
            return (number(8), number(3), number(1))
        }
    }

    func testTrackAndAlbumValuesAreLoudgains() throws {
        try XCTSkipUnless(FileManager.default.isExecutableFile(atPath: "/usr/bin/loudgain"), "loudgain is not installed (scripts/install-deps)")
        let folder = TemporaryDirectory("nimbus-loudness")
        let songs: [(name: String, channels: Int, rate: UInt32, synth: [String])] = [
            ("tone.flac", 2, 44100, ["synth", "6", "sine", "1000", "vol", "-20dB"]),
            ("noise.flac", 2, 44100, ["synth", "8", "pinknoise", "vol", "-8dB"]),
            ("mono.flac", 1, 48000, ["synth", "5", "sine", "440", "vol", "-14dB"]),
            ("hires.flac", 2, 96000, ["synth", "4", "brownnoise", "vol", "-12dB"]),
        ]
        var meters: [LoudnessMeter] = []
        for song in songs {
            let path = folder.file(song.name)
            _ = try runTool("sox", ["-n", "-r", "\(song.rate)", "-c", "\(song.channels)", "-b", "24", path] + song.synth)
            meters.append(try measure(path, channels: song.channels, rate: song.rate))
        }
        let reference = try loudgain(songs.map { folder.file($0.name) })
        XCTAssertEqual(reference.count, songs.count + 1, "loudgain answered for every song and the album")
        for (index, meter) in meters.enumerated() {
            let ours = meter.loudness
            XCTAssertEqual(ours.gain, reference[index].gain, accuracy: 0.1, "\(songs[index].name) track gain")
            XCTAssertEqual(ours.peak, reference[index].peak, accuracy: 0.0012, "\(songs[index].name) track peak")
        }
        let album = LoudnessMeter.album(of: meters)
        XCTAssertEqual(album.gain, reference[songs.count].gain, accuracy: 0.1, "album gain")
        XCTAssertEqual(album.peak, reference[songs.count].peak, accuracy: 0.0012, "album peak")
    }

    func testSilenceHasNoGain() throws {
        let meter = try LoudnessMeter(sampleRate: 44100, channels: 2)
        let silence = [Float](repeating: 0, count: 44100 * 2 * 3)
        silence.withUnsafeBufferPointer { meter.add($0) }
        XCTAssertNil(meter.loudness.integrated)
        XCTAssertEqual(meter.loudness.gain, 0)
        XCTAssertEqual(meter.loudness.samplePeak, 0)
    }

    func testTheStoreKeepsAMeasurementWhileTheFileIsUnchanged() throws {
        let folder = TemporaryDirectory("nimbus-analysis-store")
        let path = folder.file("db.analysis")
        let store = AnalysisStore(path: path)
        let loudness = Loudness(integrated: -12.5, range: 4, samplePeak: 0.9, truePeak: 0.95)
        store.set("a/b.flac", SongLoudness(modified: 100, track: loudness))
        try store.save()
        let again = AnalysisStore(path: path)
        XCTAssertEqual(again.loudness(of: "a/b.flac", modified: 100)?.track, loudness)
        XCTAssertNil(again.loudness(of: "a/b.flac", modified: 101), "a changed file is measured again")
        _ = folder.write("db.analysis", "{ broken")
        var problems: [String] = []
        let damaged = AnalysisStore(path: path) { problems.append($0) }
        XCTAssertEqual(damaged.count, 0)
        XCTAssertEqual(problems.count, 1)
        XCTAssertTrue(FileManager.default.fileExists(atPath: path + ".corrupt"), "the damaged file is kept aside")
    }
}
