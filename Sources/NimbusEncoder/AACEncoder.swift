import CFFmpeg
import NimbusModel
import NimbusSupport

/// AAC-LC by FFmpeg's own encoder, framed as ADTS (each frame with its 7-byte header), the
/// form every phone player streams: no container to finish before the first byte can go.
final class AACEncoder: Encoder {
    let contentType = "audio/aac"
    let header: [UInt8] = []
    private var codec: UnsafeMutablePointer<AVCodecContext>?
    private var frame: UnsafeMutablePointer<AVFrame>?
    private var packet: UnsafeMutablePointer<AVPacket>?
    private let channels: Int
    private let frameSize: Int
    private let adts: [UInt8]
    private var pending: [Float] = []
    private var pts: Int64 = 0

    /// FFmpeg's encoders report their statistics on stderr; the daemon's log is elsewhere.
    private static let quiet: Void = av_log_set_level(AV_LOG_FATAL)

    init(_ format: AudioFormat, kbps: Int) throws(EncoderError) {
        Self.quiet
        channels = Int(format.channels)
        guard let encoder = avcodec_find_encoder(AV_CODEC_ID_AAC), let context = avcodec_alloc_context3(encoder) else {
            throw EncoderError("FFmpeg has no AAC encoder")
        }
        codec = context
        context.pointee.sample_fmt = AV_SAMPLE_FMT_FLTP
        context.pointee.sample_rate = Int32(format.sampleRate)
        context.pointee.bit_rate = Int64(kbps) * 1000
        context.pointee.time_base = AVRational(num: 1, den: Int32(format.sampleRate))
        av_channel_layout_default(&context.pointee.ch_layout, Int32(channels))
        // `deinit` frees the context, also after these throws.
        guard avcodec_open2(context, encoder, nil) >= 0 else { throw EncoderError("cannot open the AAC encoder (\(format))") }
        frameSize = Int(context.pointee.frame_size)
        guard frameSize > 0, let frame = av_frame_alloc(), let packet = av_packet_alloc() else {
            throw EncoderError("cannot prepare AAC frames")
        }
        self.frame = frame
        self.packet = packet
        frame.pointee.nb_samples = Int32(frameSize)
        frame.pointee.format = AV_SAMPLE_FMT_FLTP.rawValue
        frame.pointee.sample_rate = Int32(format.sampleRate)
        av_channel_layout_copy(&frame.pointee.ch_layout, &context.pointee.ch_layout)
        guard av_frame_get_buffer(frame, 0) >= 0 else { throw EncoderError("cannot prepare AAC frames") }
        let rates: [UInt32] = [96000, 88200, 64000, 48000, 44100, 32000, 24000, 22050, 16000, 12000, 11025, 8000, 7350]
        let index = UInt8(rates.firstIndex(of: format.sampleRate) ?? 4)
        // ADTS fixed header: sync word, MPEG-4, no CRC; AAC LC (profile 1), rate index, channels.
        adts = [0xFF, 0xF1, (1 << 6) | (index << 2) | (UInt8(channels) >> 2), (UInt8(channels) & 3) << 6]
    }

    deinit {
        av_packet_free(&packet)
        av_frame_free(&frame)
        avcodec_free_context(&codec)
    }

    func encode(_ pcm: UnsafeRawBufferPointer) throws(EncoderError) -> [UInt8] {
        let samples = pcm.bindMemory(to: Int16.self)
        pending.reserveCapacity(pending.count + samples.count)
        for sample in samples { pending.append(Float(sample) / 32768) }
        var output: [UInt8] = []
        var offset = 0
        let step = frameSize * channels
        while pending.count - offset >= step {
            try send(offset: offset, frames: frameSize, into: &output)
            offset += step
        }
        pending.removeFirst(offset)
        return output
    }

    func finish() -> [UInt8] {
        var output: [UInt8] = []
        let frames = pending.count / channels
        if frames > 0 { try? send(offset: 0, frames: frames, into: &output) }
        pending = []
        _ = avcodec_send_frame(codec, nil)
        drain(into: &output)
        return output
    }

    /// One frame of `frames` (≤ the encoder's size; the last may be short), planar.
    private func send(offset: Int, frames: Int, into output: inout [UInt8]) throws(EncoderError) {
        guard let frame, av_frame_make_writable(frame) >= 0 else { throw EncoderError("AAC frame not writable") }
        frame.pointee.nb_samples = Int32(frames)
        frame.pointee.pts = pts
        pts += Int64(frames)
        withUnsafeMutablePointer(to: &frame.pointee.data) { planes in
            planes.withMemoryRebound(to: UnsafeMutablePointer<UInt8>?.self, capacity: 8) { plane in
                for channel in 0..<channels {
                    guard let base = plane[channel] else { continue }
                    let target = UnsafeMutableRawPointer(base).assumingMemoryBound(to: Float.self)
                    for index in 0..<frames { target[index] = pending[offset + index * channels + channel] }
                }
            }
        }
        guard avcodec_send_frame(codec, frame) >= 0 else { throw EncoderError("AAC encoding failed") }
        drain(into: &output)
    }

    private func drain(into output: inout [UInt8]) {
        guard let packet else { return }
        while avcodec_receive_packet(codec, packet) >= 0 {
            let size = Int(packet.pointee.size)
            let length = size + 7
            output += adts[0..<3]
            output.append(adts[3] | UInt8((length >> 11) & 3))
            output.append(UInt8((length >> 3) & 0xFF))
            output.append(UInt8((length & 7) << 5) | 0x1F)
            output.append(0xFC)
            if let data = packet.pointee.data { output += UnsafeBufferPointer(start: data, count: size) }
            av_packet_unref(packet)
        }
    }
}
