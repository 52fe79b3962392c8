import Foundation
import NimbusHarness
import XCTest

/// Crossfade and MixRamp heard through ALSA's file plugin: two sines of different pitch, each
/// followed through the capture in 10 ms windows, so the overlap's start, length and envelope
/// can be read off and compared with the fade the settings ask for.
final class CrossfadeTests: XCTestCase {
    private var daemons: [ServerProcess] = []

    override func tearDown() {
        daemons.removeAll()
        super.tearDown()
    }

    private func start(music: TemporaryDirectory, songs: Int, paced: Bool = false) throws -> (ALSACapture, LineClient) {
        let capture = ALSACapture(in: music)
        // Any format: the device opens in the first song's, and a reopen would restart the file.
        let daemon = try ServerProcess(
            .nimbus, config: ALSACapture.outputBlock(format: "*:*:*"), musicDirectory: music.path, nullOutput: paced,
            environment: capture.environment)
        daemons.append(daemon)
        try daemon.waitForDatabase(songs: songs)
        return (capture, try daemon.connect())
    }

    private func sine(_ music: TemporaryDirectory, _ name: String, seconds: Double, frequency: Int, rate: Int = 44100, volume: Double = 0.5) throws {
        try runTool("sox", [
            "-D", "-n", "-r", "\(rate)", "-c", "2", "-b", "16", music.file("\(name).wav"), "synth", "\(seconds)", "sine", "\(frequency)",
            "vol", "\(volume)",
        ])
    }

    private func flac(_ music: TemporaryDirectory, _ name: String, tags: [String] = []) throws {
        try runTool("flac", ["-s", "-f"] + tags.flatMap { ["-T", $0] } + ["-o", music.file("\(name).flac"), music.file("\(name).wav")])
        try FileManager.default.removeItem(atPath: music.file("\(name).wav"))
    }

    /// 44.1 kHz FLAC at 1 kHz, then 48 kHz Opus at 500 Hz, `crossfade 3`: the last three
    /// seconds of the first and the first three of the second overlap with equal-power fades,
    /// in the first song's format (the device never reopens), with no gap or click.
    func testCrossfadeOverlapsTwoSongsOfDifferentFormatsWithEqualPowerFades() throws {
        let music = TemporaryDirectory("nimbus-xfade")
        try sine(music, "a", seconds: 22, frequency: 1000)
        try flac(music, "a")
        try sine(music, "b", seconds: 22, frequency: 500, rate: 48000)
        try runTool("opusenc", ["--quiet", "--bitrate", "256", music.file("b.wav"), music.file("b.opus")])
        try FileManager.default.removeItem(atPath: music.file("b.wav"))
        let (capture, client) = try start(music: music, songs: 2)
        for command in ["crossfade 3", "add a.flac", "add b.opus", "play"] { XCTAssertEqual(try client.request(command), ["OK"], command) }
        XCTAssertTrue(client.waitForStatus("state: stop", timeout: 60), "playback did not stop")
        let left = AudioFixtures.leftChannel(capture.bytes)
        let a = 22 * 44100, overlap = 3 * 44100
        XCTAssertEqual(left.count, a + a - overlap, accuracy: 44, "both songs, less the overlap, within one period")
        let windows = Envelope(left, frequencies: [1000, 500])
        let fadeStart = Double(a - overlap) / 44100
        let checks: [(time: Double, a: Double, b: Double)] = [
            (10, 0.5, 0), (fadeStart + 0.75, 0.5 * cos(Double.pi / 8), 0.5 * sin(Double.pi / 8)),
            (fadeStart + 1.5, 0.5 * cos(Double.pi / 4), 0.5 * sin(Double.pi / 4)),
            (fadeStart + 2.25, 0.5 * cos(3 * Double.pi / 8), 0.5 * sin(3 * Double.pi / 8)), (23, 0, 0.5), (35, 0, 0.5),
        ]
        for (time, expectA, expectB) in checks
        {
            XCTAssertEqual(windows.amplitude(0, at: time), expectA, accuracy: 0.02, "1 kHz at \(time) s")
            XCTAssertEqual(windows.amplitude(1, at: time), expectB, accuracy: 0.03, "500 Hz at \(time) s")
        }
        // The fade starts where it should: silent 500 Hz a period before, audible a period after.
        XCTAssertLessThan(windows.amplitude(1, at: fadeStart - 0.02), 0.01, "the second song starts no earlier")
        XCTAssertGreaterThan(windows.amplitude(1, at: fadeStart + 0.04), 0.005, "the second song starts on time")
        windows.assertSteadyPower(from: 1, to: Double(left.count) / 44100 - 1, expected: 0.125, tolerance: 0.1)
        windows.assertNoClicks(from: 1, to: Double(left.count) / 44100 - 1)
    }

    /// MixRamp: the first song's tail reaches -17 dB 2 s before its end, the second's head
    /// 1.5 s in; `mixrampdelay 1` leaves 2.5 s of overlap, summed without fades. A third
    /// song shorter than 20 s joins without any overlap, as in MPD.
    func testMixRampPlacesTheOverlapFromTheTags() throws {
        let music = TemporaryDirectory("nimbus-mixramp")
        try sine(music, "a", seconds: 21, frequency: 1000, volume: 0.4)
        try flac(music, "a", tags: ["MIXRAMP_END=-90.00 0.00;-20.00 1.00;-14.00 3.00;0.00 8.00"])
        try sine(music, "b", seconds: 21, frequency: 500, volume: 0.4)
        try flac(music, "b", tags: ["MIXRAMP_START=-90.00 0.00;-17.00 1.50;-3.00 4.00"])
        try AudioFixtures.writeSineWAV(to: music.file("c.wav"), frames: 5 * 44100, frequency: 1000, amplitude: 0.4)
        try flac(music, "c")
        let (capture, client) = try start(music: music, songs: 3)
        for command in ["crossfade 10", "mixrampdb -17", "mixrampdelay 1", "add a.flac", "add b.flac", "add c.flac", "play"] {
            XCTAssertEqual(try client.request(command), ["OK"], command)
        }
        XCTAssertTrue(client.waitForStatus("state: stop", timeout: 60), "playback did not stop")
        let left = AudioFixtures.leftChannel(capture.bytes)
        // Tail: -17 dB lies halfway between -20 (1 s) and -14 (3 s): 2 s. Head: 1.5 s.
        let overlap = Int(2.5 * 44100)
        XCTAssertEqual(left.count, 21 * 44100 * 2 - overlap + 5 * 44100, accuracy: 44, "overlap of 2.5 s, none before the short song")
        let windows = Envelope(left, frequencies: [1000, 500])
        let start = 21 - 2.5
        XCTAssertEqual(windows.amplitude(1, at: start - 0.03), 0, accuracy: 0.01, "no 500 Hz before the overlap")
        for time in [start + 0.1, start + 1.25, start + 2.4] {
            XCTAssertEqual(windows.amplitude(0, at: time), 0.4, accuracy: 0.02, "MixRamp sums: the first song stays at full level")
            XCTAssertEqual(windows.amplitude(1, at: time), 0.4, accuracy: 0.02, "the second song comes in at full level")
        }
        XCTAssertEqual(windows.amplitude(0, at: 21.1), 0, accuracy: 0.01, "the first song is over")
        // The short third song follows gaplessly, sample-exact, at full level from its start.
        let third = Array(left.suffix(5 * 44100))
        let wrong = third.enumerated().first { abs(Double($0.element) - AudioFixtures.sineSample(frame: $0.offset, frequency: 1000, amplitude: 0.4)) > 1 }
        XCTAssertNil(wrong, "the short song is joined without a fade (frame \(wrong?.offset ?? -1))")
    }

    /// `next` with crossfade on fades (MPD cuts): the song left behind fades out from where it
    /// was heard while the new one fades in, and `currentsong` is the new one at once.
    func testNextFadesInsteadOfCutting() throws {
        let music = TemporaryDirectory("nimbus-xfade-next")
        try sine(music, "a", seconds: 30, frequency: 1000)
        try flac(music, "a")
        try sine(music, "b", seconds: 30, frequency: 500)
        try flac(music, "b")
        let (capture, client) = try start(music: music, songs: 2, paced: true)
        for command in ["crossfade 2", "add a.flac", "add b.flac", "play"] { XCTAssertEqual(try client.request(command), ["OK"], command) }
        XCTAssertTrue(client.waitForStatus("state: play", "song: 0"))
        XCTAssertTrue(client.waitForElapsed(1.5), "a played a second and a half")
        XCTAssertEqual(try client.request("next"), ["OK"])
        XCTAssertTrue(try client.request("currentsong").contains("file: b.flac"), "the new song is current at once")
        XCTAssertTrue(client.waitForElapsed(3.5), "b played past the fade")
        XCTAssertEqual(try client.request("stop"), ["OK"])
        let left = AudioFixtures.leftChannel(capture.bytes)
        let windows = Envelope(left, frequencies: [1000, 500])
        guard let arrival = windows.firstTime(1, above: 0.02) else { return XCTFail("the second song never came") }
        XCTAssertGreaterThan(arrival, 1, "the first song played before the skip")
        XCTAssertEqual(windows.amplitude(0, at: arrival - 0.1), 0.5, accuracy: 0.02, "the first song is at full level before")
        XCTAssertEqual(windows.amplitude(0, at: arrival + 1), 0.5 * cos(.pi / 4), accuracy: 0.05, "…fades out…")
        XCTAssertEqual(windows.amplitude(1, at: arrival + 1), 0.5 * sin(.pi / 4), accuracy: 0.05, "…while the new one fades in")
        XCTAssertEqual(windows.amplitude(0, at: arrival + 2.2), 0, accuracy: 0.01, "and is gone after two seconds")
        XCTAssertEqual(windows.amplitude(1, at: arrival + 2.2), 0.5, accuracy: 0.02)
    }

    /// Deleting the song that is fading in, while its overlap is being decoded: the outgoing
    /// song plays on, the new follower fades in for what is left of the overlap, nothing
    /// hangs and the queue goes on. (The decoder runs about six seconds of CD audio ahead of
    /// what is heard, so the edit comes at 12.5 s heard of a fade decoded from 17 s to 21 s.)
    func testDeletingTheIncomingSongMidFadeBringsInTheNewFollower() throws {
        let music = TemporaryDirectory("nimbus-xfade-edit")
        for (name, frequency) in [("a", 1000), ("b", 500), ("c", 1500)] {
            try sine(music, name, seconds: 21, frequency: frequency)
            try flac(music, name)
        }
        let (capture, client) = try start(music: music, songs: 3, paced: true)
        for command in ["crossfade 4", "add a.flac", "add b.flac", "add c.flac", "play", "seekcur 10"] {
            XCTAssertEqual(try client.request(command), ["OK"], command)
        }
        XCTAssertTrue(waitUntil(timeout: 10) { (try? client.request("status"))?.contains { $0.hasPrefix("elapsed: 12.5") } == true })
        XCTAssertEqual(try client.request("delete 1"), ["OK"])
        XCTAssertTrue(waitUntil(timeout: 15) { (try? client.request("currentsong"))?.contains("file: c.flac") == true },
            "the new follower became current")
        XCTAssertTrue(client.waitForElapsed(1), "c played a second")
        XCTAssertEqual(try client.request("stop"), ["OK"])
        let left = AudioFixtures.leftChannel(capture.bytes)
        let windows = Envelope(left, frequencies: [1000, 1500])
        guard let arrival = windows.firstTime(1, above: 0.02) else { return XCTFail("c never came") }
        XCTAssertGreaterThan(windows.amplitude(0, at: arrival + 0.2), 0.05, "c came in while a was still fading out")
        XCTAssertLessThan(windows.amplitude(1, at: arrival + 0.2), 0.45, "c faded in rather than cutting in")
        let end = Double(left.count) / 44100
        XCTAssertEqual(windows.amplitude(1, at: end - 0.3), 0.5, accuracy: 0.03, "c plays at full level after the overlap")
        XCTAssertEqual(windows.amplitude(0, at: end - 0.3), 0, accuracy: 0.01, "a is over")
    }
}

/// Amplitudes of given frequencies in consecutive 10 ms windows (441 frames hold whole
/// periods of 500 Hz and 1 kHz, so the two do not leak into each other).
private struct Envelope {
    static let window = 441
    let samples: [Int16]
    let frequencies: [Double]
    private var amplitudes: [[Double]] = []
    private var residual: [Double] = []

    init(_ samples: [Int16], frequencies: [Double]) {
        self.samples = samples
        self.frequencies = frequencies
        let count = samples.count / Self.window
        amplitudes = frequencies.map { _ in [Double](repeating: 0, count: count) }
        residual = [Double](repeating: 0, count: count)
        for index in 0..<count {
            let slice = samples[(index * Self.window)..<((index + 1) * Self.window)].map { Double($0) / 32768 }
            var explained = 0.0
            for (which, frequency) in frequencies.enumerated() {
                var re = 0.0, im = 0.0
                for (n, value) in slice.enumerated() {
                    let phase = 2 * Double.pi * frequency * Double(index * Self.window + n) / 44100
                    re += value * cos(phase)
                    im += value * sin(phase)
                }
                let amplitude = 2 * (re * re + im * im).squareRoot() / Double(Self.window)
                amplitudes[which][index] = amplitude
                explained += amplitude * amplitude / 2
            }
            let power = slice.reduce(0) { $0 + $1 * $1 } / Double(Self.window)
            residual[index] = max(0, power - explained)
        }
    }

    func amplitude(_ which: Int, at seconds: Double) -> Double {
        let index = Int(seconds * 100)
        guard index >= 0, index < amplitudes[which].count else { return .nan }
        return amplitudes[which][index]
    }

    func firstTime(_ which: Int, above level: Double) -> Double? {
        amplitudes[which].firstIndex { $0 > level }.map { Double($0) / 100 }
    }

    private func power(at index: Int) -> Double { amplitudes.reduce(0) { $0 + $1[index] * $1[index] / 2 } }

    /// No gap and no dip: the summed power of the two sines stays where it is for one song.
    func assertSteadyPower(from: Double, to: Double, expected: Double, tolerance: Double, file: StaticString = #filePath, line: UInt = #line) {
        for index in Int(from * 100)..<min(Int(to * 100), residual.count) where abs(power(at: index) - expected) > expected * tolerance {
            XCTFail("power \(power(at: index)) at \(Double(index) / 100) s instead of \(expected)", file: file, line: line)
            return
        }
    }

    /// A click is broadband: energy in a window that neither sine explains.
    func assertNoClicks(from: Double, to: Double, file: StaticString = #filePath, line: UInt = #line) {
        for index in Int(from * 100)..<min(Int(to * 100), residual.count) where residual[index] > 0.002 {
            XCTFail("unexplained energy \(residual[index]) at \(Double(index) / 100) s", file: file, line: line)
            return
        }
    }
}
