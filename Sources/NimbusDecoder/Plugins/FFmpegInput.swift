import CFFmpeg
import NimbusInput

/// One FFmpeg demuxer over an InputStream through a custom AVIO context (read and seek
/// callbacks into `StreamContext`), so cloud songs are read through the range cache like any
/// other: an .m4a whose `moov` sits at the end costs a head probe and a tail read. Everything
/// FFmpeg allocated is freed exactly once, in `deinit`, which also runs when `init` throws.
final class FFmpegInput {
    private(set) var format: UnsafeMutablePointer<AVFormatContext>?
    private var io: UnsafeMutablePointer<AVIOContext>?
    /// The InputStream FFmpeg reads through; nil when FFmpeg reads a URL itself (HLS).
    let context: StreamContext?
    /// The first audio stream, as MPD's plugin picks it (set last: every property has a value
    /// before anything can throw, so `deinit` runs and frees on every failure).
    private(set) var audioIndex: Int32 = -1

    /// Decoding reads in large pieces; a tag scan in small ones, so opening an .m4a and probing
    /// its first packets stays inside the head the range cache fetched, and reading `moov` at
    /// the end does not pull in a block before it.
    static let bufferSize: Int32 = 32 << 10
    static let scanBufferSize: Int32 = 4 << 10

    init(_ stream: any InputStream, name: String?, bufferSize: Int32 = FFmpegInput.bufferSize) throws(DecoderError) {
        let context = StreamContext(stream)
        self.context = context
        try? stream.seek(to: 0)
        guard let buffer = av_malloc(Int(bufferSize))?.assumingMemoryBound(to: UInt8.self) else {
            throw DecoderError("out of memory")
        }
        io = avio_alloc_context(
            buffer, bufferSize, 0, context.pointer,
            { pointer, buffer, size in
                let got = StreamContext.from(pointer).readFully(buffer, Int(size))
                if got < 0 { return -5 }  // AVERROR(EIO)
                return got == 0 ? nimbus_averror_eof() : Int32(got)
            },
            nil,
            { pointer, offset, whence in
                let context = StreamContext.from(pointer)
                if whence & AVSEEK_SIZE != 0 { return context.stream.size ?? -1 }
                return context.seek(offset, whence & ~AVSEEK_FORCE)
            })
        guard let io else {
            av_free(buffer)
            throw DecoderError("out of memory")
        }
        io.pointee.seekable = stream.isSeekable ? AVIO_SEEKABLE_NORMAL : 0
        guard let allocated = avformat_alloc_context() else { throw DecoderError("out of memory") }
        allocated.pointee.pb = io
        allocated.pointee.flags |= AVFMT_FLAG_CUSTOM_IO
        format = allocated
        // On failure avformat_open_input frees the context and clears the pointer.
        let opened = avformat_open_input(&format, name, nil, nil)
        guard opened == 0 else {
            if let failure = context.failure ?? context.firstFailure { throw DecoderError(failure.message) }
            throw DecoderError("FFmpeg does not recognise the stream (\(Self.describe(opened)))")
        }
        try findAudio()
    }

    /// FFmpeg fetching `url` itself, with its own HTTP client: HLS (`.m3u8` and MPD's
    /// `hls+http://`), whose segments and playlist reloads only libavformat's demuxer knows to
    /// follow. A read that waits more than 15 s fails, so a dead station cannot hold the
    /// decoder thread.
    init(url: String) throws(DecoderError) {
        _ = Self.quiet
        context = nil
        var options: OpaquePointer?
        av_dict_set(&options, "rw_timeout", "15000000", 0)
        av_dict_set(&options, "reconnect", "1", 0)
        av_dict_set(&options, "user_agent", "Music Player Daemon (Nimbus)", 0)
        defer { av_dict_free(&options) }
        let opened = avformat_open_input(&format, url, nil, &options)
        guard opened == 0 else { throw DecoderError("FFmpeg cannot open \(Self.withoutCredentials(url)) (\(Self.describe(opened)))") }
        try findAudio()
    }

    /// FFmpeg's own HTTP and HLS code logs every URL it opens ("Opening '…?token=…' for
    /// reading") to standard error, which is the daemon's log: silenced before the first one.
    private static let quiet: Void = av_log_set_level(AV_LOG_FATAL)

    /// A URL as it may be shown: without a user or password in it.
    static func withoutCredentials(_ url: String) -> String {
        guard let scheme = url.range(of: "://"), let at = url[scheme.upperBound...].firstIndex(of: "@"),
            !url[scheme.upperBound..<at].contains("/")
        else { return url }
        return String(url[..<scheme.upperBound]) + String(url[url.index(after: at)...])
    }

    private func findAudio() throws(DecoderError) {
        guard let format else { throw DecoderError("FFmpeg does not recognise the stream") }
        guard avformat_find_stream_info(format, nil) >= 0 else { throw DecoderError("FFmpeg found no stream information") }
        var index: Int32 = -1
        for number in 0..<Int32(format.pointee.nb_streams) where format.pointee.streams[Int(number)]!.pointee.codecpar.pointee.codec_type == AVMEDIA_TYPE_AUDIO {
            index = number
            break
        }
        guard index >= 0 else { throw DecoderError("no audio stream inside") }
        audioIndex = index
    }

    deinit {
        if format != nil { avformat_close_input(&format) }
        if io != nil {
            av_freep(&io!.pointee.buffer)
            avio_context_free(&io)
        }
    }

    var audioStream: UnsafeMutablePointer<AVStream> { format!.pointee.streams[Int(audioIndex)]! }

    static func describe(_ code: Int32) -> String {
        var text = [CChar](repeating: 0, count: 128)
        av_strerror(code, &text, text.count)
        return String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
