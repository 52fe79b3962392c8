import CFFmpeg
import NimbusInput
import NimbusModel

/// Playback through libavcodec's send/receive API. libavcodec trims what the demuxer marks
/// (MP4 edit lists and iTunSMPB become skip-samples side data and discarded packets), so
/// consecutive tracks of a gapless album join exactly. A seek lands a little before the
/// frame asked for (codecs with overlapping frames need the one before to be right) and
/// decoded frames are cut until the exact frame.
final class FFmpegDecoder: AudioDecoder {
    private let input: FFmpegInput
    private var codec: UnsafeMutablePointer<AVCodecContext>?
    private var frame: UnsafeMutablePointer<AVFrame>?
    private var packet: UnsafeMutablePointer<AVPacket>?
    // Defaults until the codec is open: every property has a value before anything can
    // throw, so `deinit` frees the codec, frame and packet on every failure.
    private(set) var format = AudioFormat(sampleRate: 44100, sample: .s16, channels: 2)
    private(set) var totalFrames: Int64?
    /// Interleaved output not handed out yet.
    private var pending: [UInt8] = []
    private var pendingOffset = 0
    private var draining = false
    private var finished = false
    /// After a seek: frames before this one are dropped.
    private var cutBefore: Int64?
    private var timeBase = AVRational(num: 1, den: 1)
    private var startTime: Int64 = 0

    convenience init(_ stream: any InputStream) throws(DecoderError) {
        try self.init(input: try FFmpegInput(stream, name: stream.uri))
    }

    init(input: FFmpegInput) throws(DecoderError) {
        self.input = input
        let audio = input.audioStream
        guard let decoder = avcodec_find_decoder(audio.pointee.codecpar.pointee.codec_id) else {
            throw DecoderError("FFmpeg has no decoder for this stream")
        }
        codec = avcodec_alloc_context3(decoder)
        frame = av_frame_alloc()
        packet = av_packet_alloc()
        guard let codec, frame != nil, packet != nil else { throw DecoderError("out of memory") }
        guard avcodec_parameters_to_context(codec, audio.pointee.codecpar) >= 0 else { throw DecoderError("bad codec parameters") }
        codec.pointee.pkt_timebase = audio.pointee.time_base
        let opened = avcodec_open2(codec, decoder, nil)
        guard opened >= 0 else { throw DecoderError("cannot open the decoder (\(FFmpegInput.describe(opened)))") }
        guard let sample = Self.sampleFormat(codec.pointee.sample_fmt), codec.pointee.sample_rate > 0,
            codec.pointee.ch_layout.nb_channels > 0
        else { throw DecoderError("unsupported sample format") }
        format = AudioFormat(sampleRate: UInt32(codec.pointee.sample_rate), sample: sample, channels: UInt8(clamping: codec.pointee.ch_layout.nb_channels))
        timeBase = audio.pointee.time_base
        startTime = audio.pointee.start_time == nimbus_av_nopts_value() ? 0 : audio.pointee.start_time
        let duration = audio.pointee.duration
        totalFrames = duration != nimbus_av_nopts_value() && duration > 0 ? Self.frames(duration, timeBase, rate: codec.pointee.sample_rate) : nil
    }

    deinit {
        av_packet_free(&packet)
        av_frame_free(&frame)
        avcodec_free_context(&codec)
    }

    /// MPD's mapping (FromFfmpegSampleFormat), and doubles as floats, bytes as 8 bits.
    static func sampleFormat(_ format: AVSampleFormat) -> SampleFormat? {
        switch format {
        case AV_SAMPLE_FMT_S16, AV_SAMPLE_FMT_S16P: return .s16
        case AV_SAMPLE_FMT_S32, AV_SAMPLE_FMT_S32P: return .s32
        case AV_SAMPLE_FMT_FLT, AV_SAMPLE_FMT_FLTP, AV_SAMPLE_FMT_DBL, AV_SAMPLE_FMT_DBLP: return .float
        case AV_SAMPLE_FMT_U8, AV_SAMPLE_FMT_U8P: return .s8
        default: return nil
        }
    }

    static func frames(_ time: Int64, _ base: AVRational, rate: Int32) -> Int64 {
        av_rescale_q(time, base, AVRational(num: 1, den: rate))
    }

    var bitRate: Int { Int((codec?.pointee.bit_rate ?? 0) / 1000) }

    func decode(into buffer: UnsafeMutableRawBufferPointer) throws(DecoderError) -> Int {
        let frameBytes = format.frameBytes
        let capacity = buffer.count / frameBytes * frameBytes
        var written = 0
        while written < capacity {
            if pendingOffset < pending.count {
                let count = min(capacity - written, pending.count - pendingOffset)
                pending.withUnsafeBytes { source in
                    buffer.baseAddress!.advanced(by: written).copyMemory(from: source.baseAddress! + pendingOffset, byteCount: count)
                }
                pendingOffset += count
                written += count
                continue
            }
            guard try nextFrame() else { break }
        }
        return written / frameBytes
    }

    /// Decodes the next frame into `pending`; false at the end.
    private func nextFrame() throws(DecoderError) -> Bool {
        guard let codec, let frame, let packet else { return false }
        while !finished {
            let received = avcodec_receive_frame(codec, frame)
            if received == 0 {
                defer { av_frame_unref(frame) }
                interleave(frame)
                if pending.count > pendingOffset { return true }
                continue
            }
            if received == nimbus_averror_eof() {
                finished = true
                break
            }
            guard received == nimbus_averror_eagain() else {
                throw DecoderError("FFmpeg decoding failed (\(FFmpegInput.describe(received)))")
            }
            if draining {
                finished = true
                break
            }
            let read = av_read_frame(input.format, packet)
            if read < 0 {
                if let failure = input.context?.failure { throw DecoderError(failure.message) }
                draining = true
                _ = avcodec_send_packet(codec, nil)
                continue
            }
            defer { av_packet_unref(packet) }
            guard packet.pointee.stream_index == input.audioIndex else { continue }
            let sent = avcodec_send_packet(codec, packet)
            // A damaged packet is skipped, as MPD does; the stream goes on.
            if sent < 0 && sent != nimbus_averror_eagain() { continue }
        }
        return false
    }

    /// Appends the frame's samples, interleaved, in `format`; cuts what a seek asked to skip.
    private func interleave(_ frame: UnsafeMutablePointer<AVFrame>) {
        var count = Int(frame.pointee.nb_samples)
        // The last packet of an MP4 says how much of its frame is real; the rest is the
        // encoder's padding (libavcodec 59 decodes it whole).
        let real = frame.pointee.pkt_duration
        if real > 0 { count = min(count, Int(Self.frames(real, timeBase, rate: Int32(format.sampleRate)))) }
        var skip = 0
        if let cut = cutBefore {
            let timestamp = frame.pointee.best_effort_timestamp != nimbus_av_nopts_value() ? frame.pointee.best_effort_timestamp : frame.pointee.pts
            if timestamp != nimbus_av_nopts_value() {
                let first = Self.frames(timestamp - startTime, timeBase, rate: Int32(format.sampleRate))
                if first + Int64(count) <= cut { return }
                skip = Int(max(0, cut - first))
            }
            cutBefore = nil
        }
        count -= skip
        guard count > 0 else { return }
        if pendingOffset >= pending.count {
            pending.removeAll(keepingCapacity: true)
            pendingOffset = 0
        }
        let channels = Int(format.channels)
        let sampleFormat = AVSampleFormat(frame.pointee.format)
        let planar = av_sample_fmt_is_planar(sampleFormat) != 0
        let inputBytes = Int(av_get_bytes_per_sample(sampleFormat))
        let outputBytes = format.sample.bytes
        let start = pending.count
        pending += [UInt8](repeating: 0, count: count * channels * outputBytes)
        pending.withUnsafeMutableBytes { output in
            let base = output.baseAddress! + start
            for channel in 0..<channels {
                let plane = frame.pointee.extended_data[planar ? channel : 0]!
                for index in 0..<count {
                    let source = plane + ((skip + index) * (planar ? 1 : channels) + (planar ? 0 : channel)) * inputBytes
                    let target = base + (index * channels + channel) * outputBytes
                    switch sampleFormat {
                    case AV_SAMPLE_FMT_DBL, AV_SAMPLE_FMT_DBLP:
                        target.storeBytes(of: Float(UnsafeRawPointer(source).loadUnaligned(as: Double.self)), as: Float.self)
                    case AV_SAMPLE_FMT_U8, AV_SAMPLE_FMT_U8P:
                        target.storeBytes(of: source.pointee ^ 0x80, as: UInt8.self)
                    default:
                        target.copyMemory(from: source, byteCount: outputBytes)
                    }
                }
            }
        }
    }

    func seek(toFrame target: Int64) throws(DecoderError) {
        guard let codec else { return }
        let rate = Int32(format.sampleRate)
        // A tenth of a second early: the frame before the target is decoded too.
        let early = max(0, target - Int64(rate) / 10)
        let timestamp = av_rescale_q(early, AVRational(num: 1, den: rate), timeBase) + startTime
        guard av_seek_frame(input.format, input.audioIndex, timestamp, AVSEEK_FLAG_BACKWARD) >= 0 else {
            throw DecoderError("seek failed")
        }
        avcodec_flush_buffers(codec)
        pending.removeAll(keepingCapacity: true)
        pendingOffset = 0
        draining = false
        finished = false
        cutBefore = target
    }
}
