import CMpg123
import Glibc
import NimbusInput
import NimbusModel

/// MP3 through libmpg123: ID3v2.2/2.3/2.4 (mpg123 converts every text encoding to UTF-8),
/// ID3v1, and the exact, gapless length from the LAME/Xing header (or an estimate from the
/// bit rate when there is none). Output is 16-bit, as MPD's mpg123 plugin decodes.
public struct MP3Plugin: DecoderPlugin {
    public let name = "mpg123"
    public let suffixes = ["mp3"]
    public let mimeTypes = ["audio/mpeg"]

    public init() {}

    public func scan(_ stream: any InputStream, options: ScanOptions) throws(DecoderError) -> ScanResult {
        let handle = try MP3Handle(stream, pictures: options.picture)
        var rate = 0
        var channels: Int32 = 0
        var encoding: Int32 = 0
        guard mpg123_getformat(handle.handle, &rate, &channels, &encoding) == MPG123_OK.rawValue else {
            throw DecoderError(handle.lastError(default: "no MPEG audio frames found"))
        }
        var result = ScanResult()
        result.format = AudioFormat(sampleRate: UInt32(rate), sample: .s16, channels: UInt8(channels))
        var collector = TagCollector()
        let frames = mpg123_length(handle.handle)
        if frames > 0 { collector.setDuration(frames: UInt64(frames), rate: UInt32(rate)) }
        result.picture = ID3Tags.collect(from: handle.handle, into: &collector, wantPicture: options.picture)
        for (key, value) in APETags.items(in: stream) { collector.noteLoudness(key, value) }
        if options.comments {
            result.comments += ID3Tags.lyrics(handle.handle)
            if let raw = ID3Tags.rawTag(handle.handle) { result.comments += ID3Lyrics.comments(in: raw) }
        }
        result.tag = collector.tag
        result.replayGain = collector.replayGain
        result.mixRamp = collector.mixRamp
        return result
    }
}

/// An mpg123 handle reading from an InputStream through replacement reader callbacks. Its one
/// owner frees it in `deinit` only, which also runs when `init` throws after setting every
/// stored property: error paths in `init` must not free it.
final class MP3Handle {
    let handle: OpaquePointer
    let context: StreamContext

    init(_ stream: any InputStream, pictures: Bool = false) throws(DecoderError) {
        var error: Int32 = 0
        guard let handle = mpg123_new(nil, &error) else { throw DecoderError("mpg123_new failed (\(error))") }
        self.handle = handle
        context = StreamContext(stream)
        var flags = Int(MPG123_QUIET.rawValue | MPG123_STORE_RAW_ID3.rawValue)
        if pictures { flags |= Int(MPG123_PICTURE.rawValue) }
        // Over a network a seek past what libmpg123 has indexed goes by byte offset, as
        // players do: the Xing/LAME table of contents, else the constant bit rate and the
        // file's length, then the next frame's sync. Within the index (everything decoded
        // so far) seeks stay sample-exact; a local file is always scanned exactly.
        if stream.isRemote { flags |= Int(MPG123_FUZZY.rawValue) }
        mpg123_param2(handle, Int32(MPG123_ADD_FLAGS.rawValue), flags, 0)
        mpg123_format_none(handle)
        for rate in [8000, 11025, 12000, 16000, 22050, 24000, 32000, 44100, 48000] {
            mpg123_format(handle, rate, Int32(MPG123_MONO.rawValue | MPG123_STEREO.rawValue), Int32(MPG123_ENC_SIGNED_16.rawValue))
        }
        mpg123_replace_reader_handle(
            handle,
            { pointer, buffer, count in StreamContext.from(pointer).read(buffer, count) },
            { pointer, offset, whence in off_t(StreamContext.from(pointer).seek(Int64(offset), whence)) },
            nil)
        try? stream.seek(to: 0)
        guard mpg123_open_handle(handle, context.pointer) == MPG123_OK.rawValue else {
            throw DecoderError(context.failure?.message ?? String(cString: mpg123_strerror(handle)))
        }
    }

    deinit {
        mpg123_close(handle)
        mpg123_delete(handle)
    }

    func lastError(default fallback: String) -> String {
        if let failure = context.failure { return failure.message }
        let message = String(cString: mpg123_strerror(handle))
        return message.isEmpty ? fallback : message
    }
}
