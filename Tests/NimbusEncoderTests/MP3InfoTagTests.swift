import NimbusModel
import XCTest

@testable import NimbusEncoder

/// The Xing/LAME tag an MP3 transcode starts with is computed before LAME has seen the song
/// (`MP3Layout`): here it is held against the tag libmp3lame writes at the end, byte for byte
/// but the music checksum (which no one can know in advance), for every MPEG version, one and
/// two channels, bit rates across each version's range and lengths on and around frame edges.
final class MP3InfoTagTests: XCTestCase {
    /// Encodes `samples` frames of a deterministic signal; returns what was sent, the encoder.
    private func encode(rate: Int, channels: Int, kbps: Int, samples: Int) throws -> ([UInt8], LameEncoder) {
        let format = AudioFormat(sampleRate: UInt32(rate), sample: .s16, channels: UInt8(channels))
        let encoder = try LameEncoder(format, quality: nil, bitrate: kbps, file: .some(Int64(samples)))
        var state: UInt32 = 12345
        var pcm = [Int16](repeating: 0, count: samples * channels)
        for index in pcm.indices {
            state = state &* 1_103_515_245 &+ 12345
            pcm[index] = Int16(truncatingIfNeeded: Int(state >> 16) % 8000 - 4000)
        }
        var sent: [UInt8] = []
        var start = 0
        while start < samples {
            let end = min(samples, start + 4096)
            try pcm[(start * channels)..<(end * channels)].withUnsafeBytes { sent += try encoder.encode($0) }
            start = end
        }
        sent += encoder.finish()
        return (sent, encoder)
    }

    func testThePredictedTagIsTheOneLAMEWrites() throws {
        let versions: [(rates: [Int], bitrates: [Int])] = [
            ([32000, 44100, 48000], [64, 128, 192, 320]), ([16000, 22050, 24000], [64, 96, 160]), ([8000, 11025, 12000], [48, 64]),
        ]
        var checked = 0
        for version in versions {
            for rate in version.rates {
                for kbps in version.bitrates {
                    for channels in [1, 2] {
                        for samples in [1, 575, 576, 1151, 1152, 1153, 1728, 4321, rate / 3 + 7] {
                            let (sent, encoder) = try encode(rate: rate, channels: channels, kbps: kbps, samples: samples)
                            let layout = MP3Layout(sampleRate: rate, channels: channels, kbps: kbps)
                            let label = "\(rate) Hz \(channels) ch \(kbps) kbit/s \(samples) samples"
                            XCTAssertEqual(Int64(sent.count), layout.totalBytes(samples: Int64(samples)), label)
                            XCTAssertEqual(encoder.exactLength, Int64(sent.count), label)
                            XCTAssertNil(encoder.finalHeader, "the prediction held: \(label)")
                            guard layout.hasTag else { continue }
                            var real = encoder.lameTag()
                            XCTAssertEqual(real.count, layout.frameBytes(padded: false), label)
                            // The music checksum is the one field not known before the song,
                            // and LAME copies the last frame's mode extension into the header.
                            let music = layout.tagOffset + MP3Layout.xingBytes + 32
                            XCTAssertEqual(MP3Layout.crc16(sent[real.count...]), UInt16(real[music]) << 8 | UInt16(real[music + 1]), label)
                            real[3] &= ~0x30
                            real[music] = 0
                            real[music + 1] = 0
                            let crc = MP3Layout.crc16(real[..<(music + 2)])
                            real[music + 2] = UInt8(crc >> 8)
                            real[music + 3] = UInt8(crc & 0xFF)
                            XCTAssertTrue(Array(sent[..<real.count]) == real, label)
                            checked += 1
                        }
                    }
                }
            }
        }
        XCTAssertGreaterThan(checked, 100)
    }

    /// Over 400 frames LAME's seek table starts halving its points: a 15 s song crosses that.
    func testALongSongsSeekTableIsLAMEs() throws {
        let (sent, encoder) = try encode(rate: 44100, channels: 2, kbps: 128, samples: 44100 * 15 + 99)
        XCTAssertNil(encoder.finalHeader)
        let layout = MP3Layout(sampleRate: 44100, channels: 2, kbps: 128)
        let real = encoder.lameTag()
        let table = (layout.tagOffset + 16)..<(layout.tagOffset + 116)
        XCTAssertEqual(Array(sent[table]), Array(real[table]))
        XCTAssertGreaterThan(layout.audioFrames(samples: 44100 * 15 + 99), 400)
    }

    /// A song that gives other than the samples expected still ends in a right tag: the one
    /// LAME wrote, for the kept copy.
    func testAWrongPredictionHandsOverLAMEsOwnTag() throws {
        let format = AudioFormat(sampleRate: 44100, sample: .s16, channels: 2)
        let encoder = try LameEncoder(format, quality: nil, bitrate: 128, file: .some(44100))
        let pcm = [Int16](repeating: 100, count: 2 * 30000)
        _ = try pcm.withUnsafeBytes { try encoder.encode($0) }
        _ = encoder.finish()
        XCTAssertEqual(encoder.finalHeader, encoder.lameTag())
        XCTAssertNotNil(encoder.finalHeader)
    }

    /// The httpd output's endless stream has no tag frame at all (it was an empty frame).
    func testAStreamHasNoTagFrame() throws {
        let encoder = try LameEncoder(AudioFormat(sampleRate: 44100, sample: .s16, channels: 2), quality: nil, bitrate: 128)
        let pcm = [Int16](repeating: 0, count: 2 * 4608)
        let bytes = try pcm.withUnsafeBytes { try encoder.encode($0) } + encoder.finish()
        let first = bytes.prefix(417 + 40)
        XCTAssertFalse(first.windowsContain(Array("Info".utf8)) || first.windowsContain(Array("Xing".utf8)))
        XCTAssertFalse(bytes[4..<40].allSatisfy { $0 == 0 }, "the first frame is audio, not an empty placeholder")
    }
}

private extension Collection where Element == UInt8 {
    func windowsContain(_ needle: [UInt8]) -> Bool {
        let bytes = Array(self)
        guard bytes.count >= needle.count else { return false }
        return (0...(bytes.count - needle.count)).contains { Array(bytes[$0..<($0 + needle.count)]) == needle }
    }
}
