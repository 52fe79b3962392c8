import COpus
import CVorbis
import NimbusModel

/// `encoder "opus"`: libopus in Ogg (RFC 7845) at 48 kHz, 20 ms packets, `bitrate` (bit/s,
/// `auto`, `max`), `complexity` (0–10, default 10) and `signal` (`auto`, `voice`, `music`)
/// as MPD reads them. The OpusHead page and the OpusTags page come first, each alone on its
/// page as the format requires; the header's pre-skip is the encoder's lookahead.
/// 16-bit PCM in (the httpd output's contract), or floats when `format` says so: a
/// transcode hands libopus the resampler's floats as they are, with no dither and rounding
/// to 16 bits that libopus would only turn back into floats.
final class OpusEncoder: Encoder {
    let contentType = "audio/ogg"
    private(set) var header: [UInt8] = []
    private let encoder: OpaquePointer
    private var stream = ogg_stream_state()
    private let channels: Int
    /// 20 ms at 48 kHz.
    private static let frameSize = 960
    /// Samples waiting for a whole frame, as the floats libopus works in.
    private var pending: [Float] = []
    private let floatInput: Bool
    private var granule: Int64 = 0
    private var packetNumber: Int64 = 0
    private var packet = [UInt8](repeating: 0, count: 4000)
    /// A file rather than an endless stream: the end is flushed through the encoder's
    /// lookahead and the last granule position says exactly where the input ended, so the
    /// file decodes to the song's length (RFC 7845 end trimming).
    var trimsEnd = false
    private var inputFrames: Int64 = 0
    private var preSkip: Int64 = 0

    static let rate: UInt32 = 48000

    init(_ format: AudioFormat, bitrate: String?, complexity: Int32, signal: String?) throws(EncoderError) {
        channels = Int(format.channels)
        floatInput = format.sample == .float
        guard format.sampleRate == Self.rate, (1...2).contains(channels), format.sample == .s16 || floatInput else {
            throw EncoderError("the Opus encoder takes 48 kHz mono or stereo, 16 bits or floats (\(format))")
        }
        var error: Int32 = 0
        guard let encoder = opus_encoder_create(Int32(Self.rate), Int32(channels), OPUS_APPLICATION_AUDIO, &error), error == OPUS_OK else {
            throw EncoderError("cannot create an Opus encoder (\(error))")
        }
        self.encoder = encoder
        switch bitrate {
        case nil, "auto": _ = nimbus_opus_set_bitrate(encoder, OPUS_AUTO)
        case "max": _ = nimbus_opus_set_bitrate(encoder, OPUS_BITRATE_MAX)
        case let value?:
            // `deinit` destroys the encoder, also after this throw.
            guard let number = Int32(value), (500...512_000).contains(number) else {
                throw EncoderError("Opus bitrate \"\(value)\" is not auto, max or 500…512000")
            }
            _ = nimbus_opus_set_bitrate(encoder, number)
        }
        _ = nimbus_opus_set_complexity(encoder, min(max(complexity, 0), 10))
        _ = nimbus_opus_set_signal(encoder, signal == "voice" ? OPUS_SIGNAL_VOICE : signal == "music" ? OPUS_SIGNAL_MUSIC : OPUS_AUTO)
        ogg_stream_init(&stream, Int32.random(in: 1...Int32.max))
        let preSkip = UInt16(clamping: nimbus_opus_lookahead(encoder))
        self.preSkip = Int64(preSkip)
        var head = Array("OpusHead".utf8) + [1, UInt8(channels)]
        withUnsafeBytes(of: preSkip.littleEndian) { head += $0 }
        withUnsafeBytes(of: Self.rate.littleEndian) { head += $0 }
        head += [0, 0, 0]
        let vendor = Array("Nimbus".utf8)
        var tags = Array("OpusTags".utf8)
        withUnsafeBytes(of: UInt32(vendor.count).littleEndian) { tags += $0 }
        tags += vendor + [0, 0, 0, 0]
        header = page(head, beginning: true) + page(tags, beginning: false)
    }

    deinit {
        ogg_stream_clear(&stream)
        opus_encoder_destroy(encoder)
    }

    /// One header packet alone on its page.
    private func page(_ bytes: [UInt8], beginning: Bool) -> [UInt8] {
        var output: [UInt8] = []
        bytes.withUnsafeBufferPointer { data in
            var packet = ogg_packet(
                packet: UnsafeMutablePointer(mutating: data.baseAddress), bytes: data.count, b_o_s: beginning ? 1 : 0, e_o_s: 0,
                granulepos: 0, packetno: packetNumber)
            packetNumber += 1
            ogg_stream_packetin(&stream, &packet)
            output = flush()
        }
        return output
    }

    private func flush() -> [UInt8] {
        var output: [UInt8] = []
        var page = ogg_page()
        while ogg_stream_flush(&stream, &page) != 0 { output += Self.bytes(page) }
        return output
    }

    private static func bytes(_ page: ogg_page) -> [UInt8] {
        Array(UnsafeBufferPointer(start: page.header, count: page.header_len)) + Array(UnsafeBufferPointer(start: page.body, count: page.body_len))
    }

    func encode(_ pcm: UnsafeRawBufferPointer) throws(EncoderError) -> [UInt8] {
        if floatInput {
            pending += pcm.bindMemory(to: Float.self)
        } else {
            // What opus_encode does inside a float build of libopus.
            pending += pcm.bindMemory(to: Int16.self).lazy.map { Float($0) * (1 / 32768) }
        }
        inputFrames += Int64(pcm.count / ((floatInput ? 4 : 2) * channels))
        return try packets(last: false)
    }

    /// Encodes every whole 20 ms frame held (with `last`, the rest padded with silence).
    private func packets(last: Bool) throws(EncoderError) -> [UInt8] {
        let frameSamples = Self.frameSize * channels
        if last, trimsEnd { pending += [Float](repeating: 0, count: Int(preSkip) * channels) }
        if last, pending.count % frameSamples != 0 {
            pending += [Float](repeating: 0, count: frameSamples - pending.count % frameSamples)
        }
        var offset = 0
        var output: [UInt8] = []
        while pending.count - offset >= frameSamples {
            let bytes = pending.withUnsafeBufferPointer { samples in
                opus_encode_float(encoder, samples.baseAddress! + offset, Int32(Self.frameSize), &packet, Int32(packet.count))
            }
            guard bytes > 0 else { throw EncoderError("Opus encoding failed (\(bytes))") }
            offset += frameSamples
            granule += Int64(Self.frameSize)
            let endOfStream = last && pending.count - offset < frameSamples
            if endOfStream, trimsEnd { granule = min(granule, preSkip + inputFrames) }
            packet.withUnsafeMutableBufferPointer { data in
                var packet = ogg_packet(
                    packet: data.baseAddress, bytes: Int(bytes), b_o_s: 0, e_o_s: endOfStream ? 1 : 0, granulepos: granule,
                    packetno: packetNumber)
                packetNumber += 1
                ogg_stream_packetin(&stream, &packet)
            }
            var page = ogg_page()
            while ogg_stream_pageout(&stream, &page) != 0 { output += Self.bytes(page) }
        }
        pending.removeFirst(offset)
        return output
    }

    func finish() -> [UInt8] {
        ((try? packets(last: true)) ?? []) + flush()
    }
}
