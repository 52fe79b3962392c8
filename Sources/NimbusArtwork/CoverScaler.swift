import CFFmpeg

/// Why a picture could not be made small.
public struct CoverError: Error, Equatable, CustomStringConvertible {
    public let description: String
    init(_ description: String) { self.description = description }
}

/// A cover scaled to fit a square of `size` pixels, as JPEG: the web page shows albums as a
/// grid of small tiles, and sending each album's full-size picture (often 1–3 MB of
/// 1400-pixel scans) would make a thousand-album grid a download of gigabytes. FFmpeg —
/// already linked for audio — decodes JPEG, PNG, WebP, BMP and GIF and its scaler does the
/// rest, so no image code of our own reads untrusted bytes.
public enum CoverScaler {
    /// The largest picture accepted (a cover file, or one inside a song).
    public static let maximumInput = 32 * 1024 * 1024
    /// The largest side decoded: a bigger picture is a decompression bomb, not a cover.
    static let maximumSide: Int32 = 8192

    /// `picture` scaled down (never up) so that its longer side is `size`, re-encoded as JPEG.
    /// A JPEG that already fits is returned as it is.
    public static func scaled(_ picture: [UInt8], size: Int) throws(CoverError) -> [UInt8] {
        _ = quiet
        guard picture.count <= maximumInput else { throw CoverError("picture too large") }
        guard let codec = codec(of: picture) else { throw CoverError("not a picture FFmpeg reads") }
        let frame = try decode(picture, codec: codec)
        defer { release(frame) }
        let width = Int(frame.pointee.width), height = Int(frame.pointee.height)
        guard width > 0, height > 0, width <= maximumSide, height <= maximumSide else { throw CoverError("bad picture size") }
        let target = max(16, min(size, 2048))
        if codec == AV_CODEC_ID_MJPEG && max(width, height) <= target { return picture }
        let scale = min(1, Double(target) / Double(max(width, height)))
        let newWidth = max(1, Int((Double(width) * scale).rounded())), newHeight = max(1, Int((Double(height) * scale).rounded()))
        return try encode(frame, width: newWidth, height: newHeight)
    }

    /// FFmpeg's own log goes to standard error, a line per broken block of a damaged JPEG: a
    /// cover that fails says so once in our log instead. (The level is FFmpeg-wide; the audio
    /// decoders report through their own errors too.)
    private static let quiet: Void = av_log_set_level(AV_LOG_FATAL)

    /// The decoder for `picture`'s format, told by its first bytes.
    static func codec(of picture: [UInt8]) -> AVCodecID? {
        func starts(_ prefix: [UInt8], at offset: Int = 0) -> Bool {
            picture.count >= offset + prefix.count && Array(picture[offset..<offset + prefix.count]) == prefix
        }
        if starts([0xFF, 0xD8, 0xFF]) { return AV_CODEC_ID_MJPEG }
        if starts([0x89, 0x50, 0x4E, 0x47]) { return AV_CODEC_ID_PNG }
        if starts(Array("RIFF".utf8)) && starts(Array("WEBP".utf8), at: 8) { return AV_CODEC_ID_WEBP }
        if starts(Array("GIF8".utf8)) { return AV_CODEC_ID_GIF }
        if starts(Array("BM".utf8)) { return AV_CODEC_ID_BMP }
        return nil
    }

    private static func decode(_ picture: [UInt8], codec id: AVCodecID) throws(CoverError) -> UnsafeMutablePointer<AVFrame> {
        guard let codec = avcodec_find_decoder(id), let context = avcodec_alloc_context3(codec) else { throw CoverError("no decoder") }
        defer { release(context) }
        context.pointee.thread_count = 1
        // Checked by the decoder before it allocates: a small file declaring a huge picture
        // (a decompression bomb) fails here rather than asking for gigabytes.
        context.pointee.max_pixels = Int64(maximumSide) * Int64(maximumSide) / 4
        guard avcodec_open2(context, codec, nil) == 0 else { throw CoverError("decoder would not open") }
        guard let packet = av_packet_alloc() else { throw CoverError("out of memory") }
        defer { release(packet) }
        guard let frame = av_frame_alloc() else { throw CoverError("out of memory") }
        // The frame goes to the caller only when decoding worked.
        var handedOver = false
        defer { if !handedOver { release(frame) } }
        // The decoder may read a little past the end: FFmpeg asks for zeroed padding.
        let padded = picture.count + Int(AV_INPUT_BUFFER_PADDING_SIZE)
        guard let data = av_malloc(padded)?.assumingMemoryBound(to: UInt8.self) else { throw CoverError("out of memory") }
        data.initialize(repeating: 0, count: padded)
        picture.withUnsafeBufferPointer { data.update(from: $0.baseAddress!, count: picture.count) }
        // From here the packet owns `data` (freed with it); until then it is ours to free.
        guard av_packet_from_data(packet, data, Int32(picture.count)) == 0 else {
            av_free(data)
            throw CoverError("out of memory")
        }
        var decoded = avcodec_send_packet(context, packet) == 0 && avcodec_receive_frame(context, frame) == 0
        if !decoded, avcodec_send_packet(context, nil) == 0 { decoded = avcodec_receive_frame(context, frame) == 0 }
        guard decoded else { throw CoverError("picture could not be decoded") }
        handedOver = true
        return frame
    }

    static func encode(_ source: UnsafeMutablePointer<AVFrame>, width: Int, height: Int) throws(CoverError) -> [UInt8] {
        guard let codec = avcodec_find_encoder(AV_CODEC_ID_MJPEG), let context = avcodec_alloc_context3(codec) else {
            throw CoverError("no JPEG encoder")
        }
        defer { release(context) }
        guard let scaled = av_frame_alloc() else { throw CoverError("out of memory") }
        defer { release(scaled) }
        guard let packet = av_packet_alloc() else { throw CoverError("out of memory") }
        defer { release(packet) }
        // Full-range YUV 4:2:0 is what a JPEG holds; FFmpeg 5 still names it YUVJ420P.
        let format = AV_PIX_FMT_YUVJ420P
        scaled.pointee.width = Int32(width)
        scaled.pointee.height = Int32(height)
        scaled.pointee.format = format.rawValue
        guard av_frame_get_buffer(scaled, 0) == 0,
            let scaler = sws_getContext(
                source.pointee.width, source.pointee.height, AVPixelFormat(source.pointee.format), Int32(width), Int32(height), format,
                SWS_AREA, nil, nil, nil)
        else { throw CoverError("cannot scale") }
        defer { sws_freeContext(scaler) }
        guard nimbus_sws_scale_frame(scaler, source, scaled) > 0 else { throw CoverError("cannot scale") }
        context.pointee.width = Int32(width)
        context.pointee.height = Int32(height)
        context.pointee.pix_fmt = format
        context.pointee.time_base = AVRational(num: 1, den: 1)
        context.pointee.thread_count = 1
        // Quality as `ffmpeg -q:v 4`: small tiles that still look sharp on a phone.
        context.pointee.flags |= AV_CODEC_FLAG_QSCALE
        context.pointee.global_quality = 4 * nimbus_ff_qp2lambda()
        scaled.pointee.quality = context.pointee.global_quality
        guard avcodec_open2(context, codec, nil) == 0, avcodec_send_frame(context, scaled) == 0,
            avcodec_receive_packet(context, packet) == 0, let data = packet.pointee.data
        else { throw CoverError("cannot encode JPEG") }
        return Array(UnsafeBufferPointer(start: data, count: Int(packet.pointee.size)))
    }

    // FFmpeg's free functions take the owner's variable (and set it to nil): each handle here
    // has one owner, a `let`, released once by the `defer` beside its allocation.
    static func release(_ frame: UnsafeMutablePointer<AVFrame>) {
        var owner: UnsafeMutablePointer<AVFrame>? = frame
        av_frame_free(&owner)
    }

    private static func release(_ packet: UnsafeMutablePointer<AVPacket>) {
        var owner: UnsafeMutablePointer<AVPacket>? = packet
        av_packet_free(&owner)
    }

    private static func release(_ context: UnsafeMutablePointer<AVCodecContext>) {
        var owner: UnsafeMutablePointer<AVCodecContext>? = context
        avcodec_free_context(&owner)
    }
}
