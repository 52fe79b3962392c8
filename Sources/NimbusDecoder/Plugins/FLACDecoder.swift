import CFLAC
import NimbusInput
import NimbusModel

/// FLAC playback through libFLAC's stream decoder. libFLAC pushes whole frames into a write
/// callback; this adapts it to pulls with a carry buffer holding the rest of the last frame.
/// Seeking is sample-exact (libFLAC trims the frame it lands in).
///
/// The handle has one owner, this object, and one place it is freed, `deinit`: Swift runs
/// `deinit` when an initializer throws after every stored property is set, so no error path
/// in `init` may free it too (that double free crashed the daemon on truncated files).
final class FLACDecoder: AudioDecoder {
    private let decoder: UnsafeMutablePointer<FLAC__StreamDecoder>
    private let context: StreamContext
    private(set) var format: AudioFormat = AudioFormat(sampleRate: 44100, sample: .s16, channels: 2)
    private(set) var totalFrames: Int64?
    private var bitsPerSample: UInt32 = 16
    /// Decoded, interleaved, not yet delivered bytes of the last frame.
    private var carry: [UInt8] = []
    private var carryOffset = 0
    private var failure: String?
    private var lastFrameBytes = 0
    private var sawStreamInfo = false
    private var lastFrameSamples = 0

    init(_ stream: any InputStream, ogg: Bool = false) throws(DecoderError) {
        guard let decoder = FLAC__stream_decoder_new() else { throw DecoderError("out of memory") }
        self.decoder = decoder
        context = StreamContext(stream)
        try? stream.seek(to: 0)
        let initialize = ogg ? FLAC__stream_decoder_init_ogg_stream : FLAC__stream_decoder_init_stream
        let status = initialize(
            decoder,
            { _, buffer, bytes, client in
                let decoder = FLACDecoder.from(client)
                let got = decoder.context.read(buffer, bytes!.pointee)
                if got < 0 { return FLAC__STREAM_DECODER_READ_STATUS_ABORT }
                bytes!.pointee = got
                return got == 0 ? FLAC__STREAM_DECODER_READ_STATUS_END_OF_STREAM : FLAC__STREAM_DECODER_READ_STATUS_CONTINUE
            },
            { _, offset, client in
                FLACDecoder.from(client).context.seek(Int64(offset), SEEK_SET) < 0
                    ? FLAC__STREAM_DECODER_SEEK_STATUS_ERROR : FLAC__STREAM_DECODER_SEEK_STATUS_OK
            },
            { _, offset, client in
                offset!.pointee = UInt64(FLACDecoder.from(client).context.stream.position)
                return FLAC__STREAM_DECODER_TELL_STATUS_OK
            },
            { _, length, client in
                guard let size = FLACDecoder.from(client).context.stream.size else { return FLAC__STREAM_DECODER_LENGTH_STATUS_UNSUPPORTED }
                length!.pointee = UInt64(size)
                return FLAC__STREAM_DECODER_LENGTH_STATUS_OK
            },
            { _, client in FLACDecoder.from(client).context.atEnd ? 1 : 0 },
            { _, frame, planes, client in
                FLACDecoder.from(client).receive(frame!.pointee.header, planes!)
                return FLAC__STREAM_DECODER_WRITE_STATUS_CONTINUE
            },
            { _, metadata, client in
                guard metadata!.pointee.type == FLAC__METADATA_TYPE_STREAMINFO else { return }
                FLACDecoder.from(client).streamInfo(metadata!.pointee.data.stream_info)
            },
            { _, status, client in
                FLACDecoder.from(client).failure = "FLAC decoder error \(status.rawValue)"
            },
            Unmanaged.passUnretained(self).toOpaque())
        guard status == FLAC__STREAM_DECODER_INIT_STATUS_OK else {
            throw DecoderError("FLAC decoder init failed (\(status.rawValue))")
        }
        guard FLAC__stream_decoder_process_until_end_of_metadata(decoder) != 0, sawStreamInfo else {
            throw DecoderError(context.failure?.message ?? failure ?? "not a FLAC stream")
        }
    }

    deinit {
        FLAC__stream_decoder_finish(decoder)
        FLAC__stream_decoder_delete(decoder)
    }

    private static func from(_ pointer: UnsafeMutableRawPointer?) -> FLACDecoder {
        Unmanaged<FLACDecoder>.fromOpaque(pointer!).takeUnretainedValue()
    }

    private func streamInfo(_ info: FLAC__StreamMetadata_StreamInfo) {
        sawStreamInfo = true
        bitsPerSample = info.bits_per_sample
        if let audio = FLACFormat.audioFormat(rate: info.sample_rate, bits: info.bits_per_sample, channels: info.channels) {
            format = audio
        }
        totalFrames = info.total_samples > 0 ? Int64(info.total_samples) : nil
    }

    var bitRate: Int {
        guard lastFrameSamples > 0 else { return 0 }
        return lastFrameBytes * 8 * Int(format.sampleRate) / lastFrameSamples / 1000
    }

    /// Interleaves one decoded frame into the carry buffer in the output sample format.
    private func receive(_ header: FLAC__FrameHeader, _ planes: UnsafePointer<UnsafePointer<FLAC__int32>?>) {
        let frames = Int(header.blocksize)
        let channels = Int(header.channels)
        let sampleBytes = format.sample.bytes
        carry.removeAll(keepingCapacity: true)
        carryOffset = 0
        carry.reserveCapacity(frames * channels * sampleBytes)
        carry.append(contentsOf: repeatElement(0, count: frames * channels * sampleBytes))
        carry.withUnsafeMutableBytes { raw in
            switch format.sample {
            case .s16:
                let out = raw.bindMemory(to: Int16.self)
                for frame in 0..<frames {
                    for channel in 0..<channels { out[frame * channels + channel] = Int16(truncatingIfNeeded: planes[channel]![frame]) }
                }
            case .s8:
                for frame in 0..<frames {
                    for channel in 0..<channels { raw[frame * channels + channel] = UInt8(bitPattern: Int8(truncatingIfNeeded: planes[channel]![frame])) }
                }
            default:
                let out = raw.bindMemory(to: Int32.self)
                for frame in 0..<frames {
                    for channel in 0..<channels { out[frame * channels + channel] = planes[channel]![frame] }
                }
            }
        }
        lastFrameSamples = frames
        var position: UInt64 = 0
        if FLAC__stream_decoder_get_decode_position(decoder, &position) != 0 {
            lastFrameBytes = Int(position) - previousDecodePosition
            previousDecodePosition = Int(position)
        }
    }

    private var previousDecodePosition = 0

    func decode(into buffer: UnsafeMutableRawBufferPointer) throws(DecoderError) -> Int {
        let frameBytes = format.frameBytes
        let capacity = buffer.count / frameBytes * frameBytes
        var filled = 0
        while filled < capacity {
            if carryOffset >= carry.count {
                carry.removeAll(keepingCapacity: true)
                carryOffset = 0
                let state = FLAC__stream_decoder_get_state(decoder)
                if state == FLAC__STREAM_DECODER_END_OF_STREAM { break }
                // Aborted (a failed read), a seek error and worse: libFLAC's process_single
                // reports success without a frame from these, forever.
                if state.rawValue > FLAC__STREAM_DECODER_END_OF_STREAM.rawValue {
                    if filled > 0 { break }
                    throw DecoderError(context.failure?.message ?? failure ?? "FLAC decoding failed")
                }
                guard FLAC__stream_decoder_process_single(decoder) != 0 else {
                    if filled > 0 { break }
                    throw DecoderError(context.failure?.message ?? failure ?? "FLAC decoding failed")
                }
                if carry.isEmpty {
                    if FLAC__stream_decoder_get_state(decoder) == FLAC__STREAM_DECODER_END_OF_STREAM { break }
                    continue
                }
            }
            let count = min(carry.count - carryOffset, capacity - filled)
            carry.withUnsafeBytes { source in
                (buffer.baseAddress! + filled).copyMemory(from: source.baseAddress! + carryOffset, byteCount: count)
            }
            carryOffset += count
            filled += count
        }
        return filled / frameBytes
    }

    func seek(toFrame frame: Int64) throws(DecoderError) {
        carry.removeAll(keepingCapacity: true)
        carryOffset = 0
        if FLAC__stream_decoder_seek_absolute(decoder, UInt64(max(0, frame))) == 0 {
            if FLAC__stream_decoder_get_state(decoder) == FLAC__STREAM_DECODER_SEEK_ERROR {
                FLAC__stream_decoder_flush(decoder)
            }
            throw DecoderError("seek failed")
        }
    }
}

extension FLACPlugin {
    public func openDecoder(_ stream: any InputStream) throws(DecoderError) -> any AudioDecoder { try FLACDecoder(stream, ogg: ogg) }
}
