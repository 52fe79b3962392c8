import CFLAC
import NimbusModel

/// `encoder "flac"`: libFLAC's stream encoder (`compression` 0–8, default 5, as MPD's),
/// streamable subset. What it writes while initialising (`fLaC` and STREAMINFO) is the header;
/// after that it writes whole frames.
final class FLACEncoder: Encoder {
    let contentType = "audio/flac"
    private(set) var header: [UInt8] = []
    private let encoder: UnsafeMutablePointer<FLAC__StreamEncoder>
    private let channels: Int
    /// What the write callback received since the last `encode`.
    fileprivate var written: [UInt8] = []
    private var samples: [Int32] = []

    init(_ format: AudioFormat, compression: UInt32) throws(EncoderError) {
        guard let encoder = FLAC__stream_encoder_new() else { throw EncoderError("cannot create a FLAC encoder") }
        self.encoder = encoder
        channels = Int(format.channels)
        FLAC__stream_encoder_set_channels(encoder, UInt32(format.channels))
        FLAC__stream_encoder_set_bits_per_sample(encoder, 16)
        FLAC__stream_encoder_set_sample_rate(encoder, format.sampleRate)
        FLAC__stream_encoder_set_compression_level(encoder, min(compression, 8))
        FLAC__stream_encoder_set_streamable_subset(encoder, 1)
        let status = FLAC__stream_encoder_init_stream(
            encoder,
            { _, buffer, bytes, _, _, client in
                let me = Unmanaged<FLACEncoder>.fromOpaque(client!).takeUnretainedValue()
                me.written += UnsafeBufferPointer(start: buffer, count: bytes)
                return FLAC__STREAM_ENCODER_WRITE_STATUS_OK
            }, nil, nil, nil, Unmanaged.passUnretained(self).toOpaque())
        // Every property has its value here: a throw runs `deinit`, the encoder's one owner.
        guard status == FLAC__STREAM_ENCODER_INIT_STATUS_OK else {
            throw EncoderError("cannot start the FLAC encoder (\(status.rawValue))")
        }
        header = written
        written = []
    }

    deinit {
        FLAC__stream_encoder_finish(encoder)
        FLAC__stream_encoder_delete(encoder)
    }

    /// The last, partial block.
    func finish() -> [UInt8] {
        FLAC__stream_encoder_finish(encoder)
        defer { written.removeAll() }
        return written
    }

    func encode(_ pcm: UnsafeRawBufferPointer) throws(EncoderError) -> [UInt8] {
        let input = pcm.bindMemory(to: Int16.self)
        samples.removeAll(keepingCapacity: true)
        samples.reserveCapacity(input.count)
        for sample in input { samples.append(Int32(sample)) }
        let frames = UInt32(input.count / channels)
        guard frames == 0 || FLAC__stream_encoder_process_interleaved(encoder, samples, frames) != 0 else {
            throw EncoderError("FLAC encoding failed")
        }
        defer { written.removeAll(keepingCapacity: true) }
        return written
    }
}
