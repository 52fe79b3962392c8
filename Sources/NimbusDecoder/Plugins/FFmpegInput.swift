import CFFmpeg
import NimbusInput

/// One FFmpeg demuxer over an InputStream through a custom AVIO context (read and seek
/// callbacks into `StreamContext`), so cloud songs are read through the range cache like any
/// other: an .m4a whose `moov` sits at the end costs a head probe and a tail read. Everything
/// FFmpeg allocated is freed exactly once, in `deinit`, which also runs when `init` throws.
final class FFmpegInput {
    private(set) var format: UnsafeMutablePointer<AVFormatContext>?
    private var io: UnsafeMutablePointer<AVIOContext>?
    let context: StreamContext
    /// The first audio stream, as MPD's plugin picks it (set last: every property has a value
    /// before anything can throw, so `deinit` runs and frees on every failure).
    private(set) var audioIndex: Int32 = -1

    /// Decoding reads in large pieces; a tag scan in small ones, so opening an .m4a and probing
    /// its first packets stays inside the head the range cache fetched, and reading `moov` at
    /// the end does not pull in a block before it.
    static let bufferSize: Int32 = 32 << 10
    static let scanBufferSize: Int32 = 4 << 10

    init(_ stream: any InputStream, name: String?, bufferSize: Int32 = FFmpegInput.bufferSize) throws(DecoderError) {
        context = StreamContext(stream)
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
        guard opened == 0, let format else {
            if let failure = context.failure ?? context.firstFailure { throw DecoderError(failure.message) }
            throw DecoderError("FFmpeg does not recognise the stream (\(Self.describe(opened)))")
        }
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
