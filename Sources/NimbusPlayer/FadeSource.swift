import NimbusDecoder
import NimbusModel
import NimbusPCM

/// A song decoded as float samples in the pipe's rate and channel count, for mixing: the
/// song coming in under a crossfade (which then plays on through it when its own format
/// differs, so the outputs never reopen in the middle of a song), or the song a skip fades
/// out. Decoder thread only.
final class FadeSource {
    /// The song, with `frame` the native frames taken from its decoder so far.
    private(set) var song: OpenSong
    /// Float samples at the pipe's rate and channel count.
    let mixFormat: AudioFormat
    /// Nil when only the sample type changes (no resampling, same channels).
    private let converter: PCMConverter?
    private var pending: [Float] = []
    private var readIndex = 0
    private var ended = false
    private(set) var failure: String?
    private var buffer = [UInt8](repeating: 0, count: MusicPipe.chunkBytes)

    init(_ song: OpenSong, mixRate: UInt32, mixChannels: UInt8, rates: RateConversion) {
        self.song = song
        mixFormat = AudioFormat(sampleRate: mixRate, sample: .float, channels: mixChannels)
        let format = song.format
        converter = format.sampleRate == mixRate && format.channels == mixChannels ? nil : PCMConverter(from: format, to: mixFormat, rates: rates)
    }

    var item: PlayItem { song.item }
    private var channels: Int { Int(mixFormat.channels) }
    private var available: Int { (pending.count - readIndex) / channels }

    /// Appends up to `frames` frames to `out`; with `padding`, silence makes up whatever the
    /// song no longer has. Returns the frames of real audio appended.
    @discardableResult
    func read(frames: Int, into out: inout [Float], padding: Bool) -> Int {
        while available < frames && !ended { decodeMore() }
        let real = min(frames, available)
        out.append(contentsOf: pending[readIndex..<(readIndex + real * channels)])
        readIndex += real * channels
        if padding && real < frames { out.append(contentsOf: repeatElement(0, count: (frames - real) * channels)) }
        if readIndex > 1 << 16 {
            pending.removeFirst(readIndex)
            readIndex = 0
        }
        return real
    }

    /// Everything converted and not yet read.
    func takePending() -> [Float] {
        defer {
            pending.removeAll(keepingCapacity: true)
            readIndex = 0
        }
        return Array(pending[readIndex...])
    }

    private func decodeMore() {
        let (frames, failure) = song.decode(into: &buffer, limit: Int.max)
        guard frames > 0 else {
            self.failure = failure
            ended = true
            // The resampler's last milliseconds: the song is as long at the mix rate as it was.
            converter?.flush(volume: 100) { floats in pending.append(contentsOf: floats.bindMemory(to: Float.self)) }
            return
        }
        song.frame += Int64(frames)
        let format = song.format
        buffer.withUnsafeBytes { raw in
            let pcm = UnsafeRawBufferPointer(rebasing: raw[..<(frames * format.frameBytes)])
            guard let converter else { return PCMConverter.toFloat(pcm, format: format, frames: frames, into: &pending) }
            converter.convert(pcm, volume: 100) { floats in pending.append(contentsOf: floats.bindMemory(to: Float.self)) }
        }
    }
}
