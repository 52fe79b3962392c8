import CVorbis
import NimbusModel

/// `encoder "vorbis"`: libvorbisenc in Ogg pages, by `quality` (-1…10, default 3, as MPD)
/// or `bitrate` (kbit/s, managed). One logical stream for the whole session: song changes are
/// announced by ICY metadata, never by a new chained stream, which browsers stop at.
final class VorbisEncoder: Encoder {
    let contentType = "audio/ogg"
    private(set) var header: [UInt8] = []
    private var info = vorbis_info()
    private var dsp = vorbis_dsp_state()
    private var block = vorbis_block()
    private var stream = ogg_stream_state()
    private let channels: Int

    init(_ format: AudioFormat, quality: Float?, bitrate: Int?) throws(EncoderError) {
        channels = Int(format.channels)
        vorbis_info_init(&info)
        let status: Int32
        if let bitrate {
            status = vorbis_encode_init(&info, Int(format.channels), Int(format.sampleRate), -1, bitrate * 1000, -1)
        } else {
            status = vorbis_encode_init_vbr(&info, Int(format.channels), Int(format.sampleRate), (quality ?? 3) / 10)
        }
        // `deinit` clears everything, also after this throw (the rest is still zeroed).
        guard status == 0 else {
            throw EncoderError("the Vorbis encoder does not take these settings (\(status))")
        }
        var comment = vorbis_comment()
        vorbis_comment_init(&comment)
        vorbis_analysis_init(&dsp, &info)
        vorbis_block_init(&dsp, &block)
        ogg_stream_init(&stream, Int32.random(in: 1...Int32.max))
        var identification = ogg_packet(), comments = ogg_packet(), codebooks = ogg_packet()
        vorbis_analysis_headerout(&dsp, &comment, &identification, &comments, &codebooks)
        ogg_stream_packetin(&stream, &identification)
        ogg_stream_packetin(&stream, &comments)
        ogg_stream_packetin(&stream, &codebooks)
        vorbis_comment_clear(&comment)
        var page = ogg_page()
        while ogg_stream_flush(&stream, &page) != 0 { header += Self.bytes(page) }
    }

    deinit {
        ogg_stream_clear(&stream)
        vorbis_block_clear(&block)
        vorbis_dsp_clear(&dsp)
        vorbis_info_clear(&info)
    }

    private static func bytes(_ page: ogg_page) -> [UInt8] {
        Array(UnsafeBufferPointer(start: page.header, count: page.header_len)) + Array(UnsafeBufferPointer(start: page.body, count: page.body_len))
    }

    /// End of stream: the last packets, and the last page flushed.
    func finish() -> [UInt8] {
        vorbis_analysis_wrote(&dsp, 0)
        var output = pages()
        var page = ogg_page()
        while ogg_stream_flush(&stream, &page) != 0 { output += Self.bytes(page) }
        return output
    }

    func encode(_ pcm: UnsafeRawBufferPointer) throws(EncoderError) -> [UInt8] {
        let input = pcm.bindMemory(to: Int16.self)
        let frames = input.count / channels
        if frames > 0, let planes = vorbis_analysis_buffer(&dsp, Int32(frames)) {
            for channel in 0..<channels {
                let plane = planes[channel]!
                for frame in 0..<frames { plane[frame] = Float(input[frame * channels + channel]) / 32768 }
            }
            vorbis_analysis_wrote(&dsp, Int32(frames))
        }
        return pages()
    }

    /// Packets of the blocks ready, in pages that are full.
    private func pages() -> [UInt8] {
        var packet = ogg_packet()
        while vorbis_analysis_blockout(&dsp, &block) == 1 {
            vorbis_analysis(&block, nil)
            vorbis_bitrate_addblock(&block)
            while vorbis_bitrate_flushpacket(&dsp, &packet) == 1 { ogg_stream_packetin(&stream, &packet) }
        }
        var output: [UInt8] = []
        var page = ogg_page()
        while ogg_stream_pageout(&stream, &page) != 0 { output += Self.bytes(page) }
        return output
    }
}
