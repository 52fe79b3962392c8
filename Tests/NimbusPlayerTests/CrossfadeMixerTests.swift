import NimbusDecoder
import NimbusModel
import NimbusPCM
@testable import NimbusPlayer
import XCTest

/// The crossfade mixer with fake decoders, without a daemon or a pipe: two songs in, mixed
/// chunks out, driven the way the decoder thread drives it.
final class CrossfadeMixerTests: XCTestCase {
    /// A song of `frames` frames whose every sample is `value(channel)`.
    private final class FakeDecoder: AudioDecoder {
        let format: AudioFormat
        let totalFrames: Int64?
        let bitRate = 0
        private let value: (Int) -> Float
        private var position: Int64 = 0

        init(format: AudioFormat, frames: Int64, value: @escaping (Int) -> Float) {
            self.format = format
            totalFrames = frames
            self.value = value
        }

        func decode(into buffer: UnsafeMutableRawBufferPointer) throws(DecoderError) -> Int {
            let frames = min(buffer.count / format.frameBytes, Int((totalFrames ?? 0) - position))
            var floats: [Float] = []
            for _ in 0..<frames { for channel in 0..<Int(format.channels) { floats.append(value(channel)) } }
            var bytes: [UInt8] = []
            PCMConverter.fromFloat(floats, format: format, into: &bytes)
            bytes.withUnsafeBytes { buffer.copyMemory(from: $0) }
            position += Int64(frames)
            return frames
        }

        func seek(toFrame frame: Int64) throws(DecoderError) { position = frame }
    }

    private let stereo = AudioFormat(sampleRate: 8000, sample: .float, channels: 2)

    private func song(_ token: UInt64, format: AudioFormat, seconds: Double, value: @escaping @Sendable (Int) -> Float) throws -> OpenSong {
        let frames = Int64(seconds * Double(format.sampleRate))
        let item = PlayItem(token: token, queueID: Int(token), uri: "fake\(token)") {
            FakeDecoder(format: format, frames: frames, value: value)
        }
        return try OpenSong.open(item)
    }

    /// What the pipe would receive, as floats per channel, with the frame each chunk said
    /// it starts at; `edit` runs before every chunk with the frames written so far.
    private struct Output {
        var left: [Float] = []
        var right: [Float] = []
        var formats: Set<AudioFormat> = []
    }

    private func play(
        _ first: OpenSong, follower: OpenSong?, overlapSeconds: Double, additive: Bool = false,
        edit: (CrossfadeMixer, Int) -> Void = { _, _ in }
    ) -> Output {
        let mixer = CrossfadeMixer()
        var song = first
        mixer.playDirect(song.format)
        if let follower { mixer.admit(follower, overlapFrames: Int64(overlapSeconds * Double(song.format.sampleRate)), additive: additive) }
        var output = Output()
        var buffer = [UInt8](repeating: 0, count: MusicPipe.chunkBytes)
        func take(_ bytes: UnsafeRawBufferPointer, _ format: AudioFormat) {
            var floats: [Float] = []
            PCMConverter.toFloat(bytes, format: format, frames: bytes.count / format.frameBytes, into: &floats)
            for frame in 0..<(floats.count / Int(format.channels)) {
                output.left.append(floats[frame * Int(format.channels)])
                output.right.append(floats[frame * Int(format.channels) + Int(format.channels) - 1])
            }
            output.formats.insert(format)
        }
        while true {
            edit(mixer, output.left.count)
            mixer.beginOverlapIfDue(song)
            if mixer.isMixing {
                let (chunk, failure) = mixer.mix(&song, buffer: &buffer)
                XCTAssertNil(failure)
                if let chunk {
                    mixer.encoded.withUnsafeBytes { take($0, mixer.format) }
                    mixer.advance(&song, by: chunk)
                    continue
                }
            } else {
                let (frames, failure) = song.decode(into: &buffer, limit: mixer.framesBeforeOverlap(song))
                XCTAssertNil(failure)
                if frames > 0 {
                    buffer.withUnsafeBytes { take(UnsafeRawBufferPointer(rebasing: $0[..<(frames * song.format.frameBytes)]), song.format) }
                    song.frame += Int64(frames)
                    continue
                }
            }
            // The song has nothing more: its follower takes over, or the queue ends.
            guard let (next, leftover) = mixer.handOver() else { return output }
            song = next
            if leftover != nil { mixer.encoded.withUnsafeBytes { take($0, mixer.format) } }
        }
    }

    func testAnEqualPowerCrossfadeOverTheLastSecond() throws {
        // The outgoing song is all left channel, its follower all right: each channel is one
        // song's gain.
        let first = try song(1, format: stereo, seconds: 3) { $0 == 0 ? 0.5 : 0 }
        let second = try song(2, format: stereo, seconds: 3) { $0 == 1 ? 0.5 : 0 }
        let output = play(first, follower: second, overlapSeconds: 1)
        XCTAssertEqual(output.left.count, 5 * 8000, "3 s + 3 s overlapping by 1 s")
        XCTAssertEqual(output.formats, [stereo])
        let start = 2 * 8000, end = 3 * 8000
        XCTAssertEqual(output.left[start - 1], 0.5, accuracy: 1e-6, "full level up to the overlap")
        XCTAssertEqual(output.right[start - 1], 0, "nothing of the follower before it")
        for frame in stride(from: start, to: end, by: 400) {
            let out = output.left[frame] / 0.5, incoming = output.right[frame] / 0.5
            XCTAssertEqual(out * out + incoming * incoming, 1, accuracy: 1e-3, "equal power at \(frame)")
            let angle = Double(frame - start) / Double(end - start) * .pi / 2
            XCTAssertEqual(Double(incoming), sin(angle), accuracy: 1e-3, "a quarter sine at \(frame)")
        }
        XCTAssertEqual(output.left[end], 0, accuracy: 1e-6, "the outgoing song is over")
        XCTAssertEqual(output.right[end], 0.5, accuracy: 1e-6, "the follower at full level")
    }

    func testMixRampSumsWithoutFades() throws {
        let first = try song(1, format: stereo, seconds: 2) { $0 == 0 ? 0.25 : 0 }
        let second = try song(2, format: stereo, seconds: 2) { $0 == 1 ? 0.25 : 0 }
        let output = play(first, follower: second, overlapSeconds: 0.5, additive: true)
        let middle = Int(1.75 * 8000)
        XCTAssertEqual(output.left[middle], 0.25, accuracy: 1e-6)
        XCTAssertEqual(output.right[middle], 0.25, accuracy: 1e-6)
    }

    func testAFollowerInAnotherFormatStaysConvertedToTheSongItFadedUnder() throws {
        let mono = AudioFormat(sampleRate: 16000, sample: .s16, channels: 1)
        let first = try song(1, format: stereo, seconds: 2) { _ in 0.5 }
        let second = try song(2, format: mono, seconds: 2) { _ in 0.5 }
        let output = play(first, follower: second, overlapSeconds: 0.5)
        XCTAssertEqual(output.formats, [stereo], "no output reopens in the middle of a song")
        // 2 s + 2 s - 0.5 s at the pipe's rate, give or take the resampler's delay.
        XCTAssertEqual(Double(output.left.count), 3.5 * 8000, accuracy: 64)
        let late = output.left.count - 4000
        XCTAssertEqual(output.left[late], 0.5, accuracy: 0.01, "the follower, resampled, at full level")
        XCTAssertEqual(output.right[late], output.left[late], accuracy: 1e-6, "mono to both channels")
    }

    func testAQueueEditMidOverlapLetsTheOutgoingSongPlayOn() throws {
        let first = try song(1, format: stereo, seconds: 3) { $0 == 0 ? 0.5 : 0 }
        let second = try song(2, format: stereo, seconds: 3) { $0 == 1 ? 0.5 : 0 }
        let edited = 2 * 8000 + 4000
        var dropped = false
        let output = play(first, follower: second, overlapSeconds: 1) { mixer, written in
            if written >= edited, !dropped {
                dropped = true
                mixer.dropFollower()
            }
        }
        XCTAssertTrue(dropped)
        XCTAssertEqual(output.left.count, 3 * 8000, "the outgoing song alone, to its end")
        let after = output.left.count - 1000
        XCTAssertEqual(output.left[after], 0.5, accuracy: 1e-6, "back at full level")
        XCTAssertEqual(output.right[after], 0, "nothing more of the dropped follower")
        XCTAssertGreaterThan(output.right[edited - 100], 0, "what was mixed in stays")
    }

    func testASkipFadesTheSongLeftBehindOut() throws {
        let mixer = CrossfadeMixer()
        var song = try song(2, format: stereo, seconds: 3) { $0 == 1 ? 0.5 : 0 }
        mixer.playDirect(song.format)
        mixer.fadeOut(try self.song(1, format: stereo, seconds: 3) { $0 == 0 ? 0.5 : 0 }, seconds: 1)
        XCTAssertTrue(mixer.isMixing)
        var buffer = [UInt8](repeating: 0, count: MusicPipe.chunkBytes)
        var left: [Float] = [], right: [Float] = []
        while mixer.isMixing, let chunk = mixer.mix(&song, buffer: &buffer).chunk {
            var floats: [Float] = []
            mixer.encoded.withUnsafeBytes { PCMConverter.toFloat($0, format: stereo, frames: chunk.frames, into: &floats) }
            for frame in 0..<chunk.frames {
                left.append(floats[2 * frame])
                right.append(floats[2 * frame + 1])
            }
            mixer.advance(&song, by: chunk)
        }
        XCTAssertFalse(mixer.isMixing, "the fade ends by itself")
        XCTAssertEqual(left.count, 8000, accuracy: MusicPipe.chunkBytes / 8, "one second of fading")
        XCTAssertEqual(left[0], 0.5, accuracy: 1e-3, "the song left behind starts at full level")
        XCTAssertEqual(right[0], 0, accuracy: 1e-3, "the new song starts silent")
        XCTAssertEqual(right[7999], 0.5, accuracy: 1e-2)
        XCTAssertEqual(song.frame, Int64(left.count), "the new song moved on by what was written")
    }
}
