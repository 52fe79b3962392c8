import CALSA
import Foundation
import NimbusHarness
import XCTest

/// Plays PCM through the real libasound into a file, using an ALSA `file` PCM defined in an
/// in-process configuration (no sound card, no environment variables).
final class ALSABindingTests: XCTestCase {
    func testPCMWrittenThroughTheFilePluginArrivesByteForByte() throws {
        calsa_silence_errors()
        let directory = TemporaryDirectory()
        let output = directory.file("out.raw")
        let text = "pcm.capture { type file slave.pcm { type null } file \"\(output)\" format \"raw\" }\n"
        var input: OpaquePointer?
        XCTAssertEqual(text.withCString { snd_input_buffer_open(&input, $0, text.utf8.count) }, 0)
        defer { snd_input_close(input) }
        var config: OpaquePointer?
        XCTAssertEqual(snd_config_top(&config), 0)
        defer { snd_config_delete(config) }
        XCTAssertEqual(snd_config_load(config, input), 0)

        var pcm: OpaquePointer?
        XCTAssertEqual(snd_pcm_open_lconf(&pcm, "capture", SND_PCM_STREAM_PLAYBACK, 0, config), 0)
        XCTAssertEqual(snd_pcm_set_params(pcm, SND_PCM_FORMAT_S16_LE, SND_PCM_ACCESS_RW_INTERLEAVED, 2, 44100, 1, 100_000), 0)
        let samples = sineS16(frames: 4410)
        let written = samples.withUnsafeBytes { snd_pcm_writei(pcm, $0.baseAddress, 4410) }
        XCTAssertEqual(written, 4410)
        snd_pcm_drain(pcm)
        snd_pcm_close(pcm)

        let data = try Data(contentsOf: URL(fileURLWithPath: output))
        XCTAssertEqual(data, samples.withUnsafeBytes { Data($0) })
    }

    func testOpeningAMissingCardFailsCleanly() {
        calsa_silence_errors()
        var pcm: OpaquePointer?
        XCTAssertLessThan(snd_pcm_open(&pcm, "hw:99,0", SND_PCM_STREAM_PLAYBACK, 0), 0)
    }
}
