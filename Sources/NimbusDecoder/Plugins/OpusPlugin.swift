import COpusFile
import NimbusInput
import NimbusModel

/// Opus through libopusfile, answering as MPD's opus plugin does: 16-bit at 48 kHz, the
/// length without the pre-skip, Vorbis-comment tags (values of 4 KiB or more ignored), and
/// ReplayGain from R128_TRACK_GAIN/R128_ALBUM_GAIN (Q7.8 dB, plus 5 dB for ReplayGain's
/// reference level) with the header's output gain added — or the output gain alone as the
/// track gain when there are none (MPD's OpusDecoderPlugin.cxx and OpusTags.cxx). The output
/// gain is therefore not also applied while decoding.
public struct OpusPlugin: DecoderPlugin {
    public let name = "opus"
    /// MPD's lists: Ogg files that are not Vorbis are tried as Opus.
    public let suffixes = ["opus", "ogg", "oga"]
    public let mimeTypes = ["audio/ogg", "application/ogg", "audio/opus"]

    public init() {}

    public func scan(_ stream: any InputStream, options: ScanOptions) throws(DecoderError) -> ScanResult {
        let file = try OpusFile(stream)
        var result = ScanResult()
        var collector = TagCollector()
        let channels = max(1, op_channel_count(file.handle, -1))
        result.format = AudioFormat(sampleRate: 48000, sample: .s16, channels: UInt8(clamping: channels))
        let total = op_pcm_total(file.handle, -1)
        if total > 0 { collector.setDuration(frames: UInt64(total), rate: 48000) }
        var gains = (track: Float?.none, album: Float?.none)
        if let tags = op_tags(file.handle, 0)?.pointee {
            for index in 0..<Int(tags.comments) {
                guard let bytes = tags.user_comments[index] else { continue }
                let length = Int(tags.comment_lengths[index])
                let text = String(decoding: UnsafeRawBufferPointer(start: bytes, count: length), as: UTF8.self)
                guard let (key, value) = VorbisComments.split(text) else { continue }
                // The gains become ReplayGain and, as in MPD 0.24, are not listed by readcomments.
                if key.caseInsensitiveEquals("R128_TRACK_GAIN") {
                    gains.track = Int32(value).map { Float($0) / 256 + 5 }
                    continue
                }
                if key.caseInsensitiveEquals("R128_ALBUM_GAIN") {
                    gains.album = Int32(value).map { Float($0) / 256 + 5 }
                    continue
                }
                if options.comments { result.comments.append((key, value)) }
                collector.mixRamp.note(key, value)
                if options.picture, result.picture == nil, key.caseInsensitiveEquals("METADATA_BLOCK_PICTURE") {
                    result.picture = FLACPictureBlock.parse(base64: value)
                }
                if value.utf8.count < 4096, let type = VorbisComments.tagType(forKey: key) { collector.add(type, value) }
            }
        }
        let outputGain = Float(op_head(file.handle, 0)?.pointee.output_gain ?? 0) / 256
        if gains.track == nil && gains.album == nil {
            result.replayGain = ReplayGainInfo(trackGain: outputGain)
        } else {
            result.replayGain = ReplayGainInfo(trackGain: gains.track.map { $0 + outputGain }, albumGain: gains.album.map { $0 + outputGain })
        }
        result.tag = collector.tag
        result.mixRamp = collector.mixRamp
        return result
    }

    public func openDecoder(_ stream: any InputStream) throws(DecoderError) -> any AudioDecoder { try OpusDecoder(stream) }
}

/// One open OggOpusFile over an InputStream, freed exactly once in `deinit`.
final class OpusFile {
    let handle: OpaquePointer
    let context: StreamContext

    init(_ stream: any InputStream) throws(DecoderError) {
        context = StreamContext(stream)
        try? stream.seek(to: 0)
        var callbacks = OpusFileCallbacks(
            read: { pointer, buffer, count in
                Int32(clamping: StreamContext.from(pointer).read(buffer, Int(count)))
            },
            seek: { pointer, offset, whence in
                StreamContext.from(pointer).seek(offset, whence) < 0 ? -1 : 0
            },
            tell: { pointer in StreamContext.from(pointer).stream.position },
            close: nil)
        var error: Int32 = 0
        guard let handle = op_open_callbacks(context.pointer, &callbacks, nil, 0, &error) else {
            if let failure = context.failure ?? context.firstFailure { throw DecoderError(failure.message) }
            throw DecoderError("not a valid Opus stream (\(error))")
        }
        self.handle = handle
    }

    deinit { op_free(handle) }
}

/// Opus playback: libopusfile trims the pre-skip and the end padding from granule positions
/// (gapless by construction) and seeks to the exact sample.
final class OpusDecoder: AudioDecoder {
    private let file: OpusFile
    let format: AudioFormat
    let totalFrames: Int64?

    init(_ stream: any InputStream) throws(DecoderError) {
        file = try OpusFile(stream)
        // MPD submits the header's output gain as ReplayGain instead of applying it.
        _ = op_set_gain_offset(file.handle, OP_ABSOLUTE_GAIN, 0)
        let channels = op_channel_count(file.handle, -1)
        guard channels > 0 else { throw DecoderError("no Opus stream information") }
        format = AudioFormat(sampleRate: 48000, sample: .s16, channels: UInt8(clamping: channels))
        let total = op_pcm_total(file.handle, -1)
        totalFrames = total > 0 ? total : nil
    }

    var bitRate: Int { max(0, Int(op_bitrate_instant(file.handle)) / 1000) }

    /// Floats from libopusfile, rounded to 16 bits here: op_read would shape dither noise
    /// into every sample (costly, and not what MPD hears: it takes libopus's own 16-bit
    /// output, which rounds).
    private var floats: [Float] = []

    func decode(into buffer: UnsafeMutableRawBufferPointer) throws(DecoderError) -> Int {
        let channels = Int(format.channels)
        let output = buffer.bindMemory(to: Int16.self)
        let capacity = output.count / channels
        if floats.count < capacity * channels { floats = [Float](repeating: 0, count: capacity * channels) }
        var filled = 0
        while filled < capacity {
            var link: Int32 = 0
            let frames = floats.withUnsafeMutableBufferPointer { floats in
                op_read_float(file.handle, floats.baseAddress!, Int32(clamping: (capacity - filled) * channels), &link)
            }
            if frames == 0 {
                if filled == 0, let failure = file.context.failure { throw DecoderError(failure.message) }
                break
            }
            if frames < 0 {
                if frames == OP_HOLE { continue }
                if filled > 0 { break }
                throw DecoderError("Opus decoding failed (\(frames))")
            }
            // A chained file whose next link has another channel count cannot continue here.
            if op_channel_count(file.handle, link) != Int32(channels) { break }
            let target = output.baseAddress! + filled * channels
            floats.withUnsafeBufferPointer { floats in
                for index in 0..<(Int(frames) * channels) {
                    target[index] = Int16(max(-32768, min(32767, (floats[index] * 32768).rounded())))
                }
            }
            filled += Int(frames)
        }
        return filled
    }

    func seek(toFrame frame: Int64) throws(DecoderError) {
        guard op_pcm_seek(file.handle, frame) == 0 else { throw DecoderError("seek failed") }
    }
}
