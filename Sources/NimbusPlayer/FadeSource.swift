import NimbusDecoder
import NimbusModel
import NimbusOutput

/// A song decoded as float samples in the pipe's rate and channel count, for mixing: the
/// song coming in under a crossfade (which then plays on through it when its own format
/// differs, so the outputs never reopen in the middle of a song), or the song a skip fades
/// out. Decoder thread only.
final class FadeSource {
    let item: PlayItem
    let decoder: any AudioDecoder
    /// Float samples at the pipe's rate and channel count.
    let mixFormat: AudioFormat
    /// Nil when only the sample type changes (no resampling, same channels).
    private var converter: PCMConverter?
    /// Native frames taken from the decoder so far.
    private(set) var frame: Int64
    private let endFrame: Int64?
    private var pending: [Float] = []
    private var readIndex = 0
    private(set) var ended = false
    private(set) var failure: String?
    private var buffer = [UInt8](repeating: 0, count: MusicPipe.chunkBytes)

    init(item: PlayItem, decoder: any AudioDecoder, startFrame: Int64, mixRate: UInt32, mixChannels: UInt8) {
        self.item = item
        self.decoder = decoder
        frame = startFrame
        mixFormat = AudioFormat(sampleRate: mixRate, sample: .float, channels: mixChannels)
        converter = Self.converter(from: decoder.format, to: mixFormat)
        endFrame = item.endMilliseconds.map { Int64($0) * Int64(decoder.format.sampleRate) / 1000 }
    }

    var channels: Int { Int(mixFormat.channels) }
    private var available: Int { (pending.count - readIndex) / channels }
    /// Nothing more will come: the decoder ended and every converted sample was read.
    var exhausted: Bool { ended && available == 0 }

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

    /// Starts over at `target` (native frames): a seek in the outgoing song undoes the mix.
    func rewind(to target: Int64) throws(DecoderError) {
        if target != frame { try decoder.seek(toFrame: target) }
        frame = target
        pending.removeAll(keepingCapacity: true)
        readIndex = 0
        ended = false
        converter = Self.converter(from: decoder.format, to: mixFormat)
    }

    private static func converter(from format: AudioFormat, to mixFormat: AudioFormat) -> PCMConverter? {
        format.sampleRate == mixFormat.sampleRate && format.channels == mixFormat.channels ? nil : PCMConverter(from: format, to: mixFormat)
    }

    private func decodeMore() {
        let frameBytes = decoder.format.frameBytes
        var capacity = buffer.count / frameBytes
        if let endFrame { capacity = min(capacity, Int(max(0, endFrame - frame))) }
        guard capacity > 0 else {
            ended = true
            return
        }
        let frames: Int
        do {
            frames = try buffer.withUnsafeMutableBytes { raw in
                try decoder.decode(into: UnsafeMutableRawBufferPointer(rebasing: raw[..<(capacity * frameBytes)]))
            }
        } catch {
            failure = (error as? DecoderError)?.message ?? "\(error)"
            ended = true
            return
        }
        guard frames > 0 else {
            ended = true
            return
        }
        frame += Int64(frames)
        buffer.withUnsafeBytes { raw in
            let pcm = UnsafeRawBufferPointer(rebasing: raw[..<(frames * frameBytes)])
            guard let converter else { return PCMConverter.toFloat(pcm, format: decoder.format, frames: frames, into: &pending) }
            converter.convert(pcm, volume: 100) { floats in pending.append(contentsOf: floats.bindMemory(to: Float.self)) }
        }
    }
}
