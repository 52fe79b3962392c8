import CMpcDec
import NimbusInput
import NimbusModel

/// Musepack (`.mpc`, SV7 and SV8) through libmpcdec, as MPD's `mpcdec` plugin: the exact
/// length from the stream header (FFmpeg's estimate was a third short), sample-exact seeking,
/// float samples, tags and ReplayGain from the APEv2 tag Musepack files carry.
public struct MusepackPlugin: DecoderPlugin {
    public let name = "mpcdec"
    public let suffixes = ["mpc"]
    public let mimeTypes = ["audio/x-musepack"]

    public init() {}

    public func scan(_ stream: any InputStream, options: ScanOptions) throws(DecoderError) -> ScanResult {
        let demuxer = try MusepackDemuxer(stream)
        var result = ScanResult()
        result.format = demuxer.format
        var collector = TagCollector()
        collector.setDuration(frames: UInt64(max(0, demuxer.totalFrames)), rate: demuxer.format.sampleRate)
        for (key, value) in APETags.items(in: stream) {
            if let type = VorbisComments.tagType(forKey: key) { collector.add(type, value) }
            collector.noteLoudness(key, value)
        }
        result.tag = collector.tag
        result.replayGain = collector.replayGain
        return result
    }

    public func openDecoder(_ stream: any InputStream) throws(DecoderError) -> any AudioDecoder {
        MusepackDecoder(try MusepackDemuxer(stream))
    }
}

/// libmpcdec's demuxer over an `InputStream` (its reader callbacks reach the stream through
/// the reader's `data`); owns the demuxer and the context for their lifetime.
final class MusepackDemuxer {
    let context: StreamContext
    private let reader: UnsafeMutablePointer<mpc_reader>
    let demux: OpaquePointer
    let format: AudioFormat
    let totalFrames: Int64
    let bitRate: Int

    init(_ stream: any InputStream) throws(DecoderError) {
        context = StreamContext(stream)
        try? stream.seek(to: 0)
        reader = .allocate(capacity: 1)
        reader.initialize(
            to: mpc_reader(
                read: { reader, buffer, size in
                    Int32(StreamContext.from(reader!.pointee.data).readFully(buffer, Int(max(0, size))))
                },
                seek: { reader, offset in StreamContext.from(reader!.pointee.data).seek(Int64(offset), SEEK_SET) >= 0 ? 1 : 0 },
                tell: { reader in Int32(clamping: StreamContext.from(reader!.pointee.data).stream.position) },
                get_size: { reader in Int32(clamping: StreamContext.from(reader!.pointee.data).stream.size ?? -1) },
                canseek: { reader in StreamContext.from(reader!.pointee.data).stream.isSeekable ? 1 : 0 },
                data: context.pointer))
        guard let demux = mpc_demux_init(reader) else {
            reader.deallocate()
            if let failure = context.firstFailure { throw DecoderError(failure.message) }
            throw DecoderError("not a Musepack stream")
        }
        self.demux = demux
        var info = mpc_streaminfo()
        mpc_demux_get_info(demux, &info)
        guard info.sample_freq > 0, (1...8).contains(info.channels) else {
            mpc_demux_exit(demux)
            reader.deallocate()
            throw DecoderError("a Musepack stream without a usable format")
        }
        format = AudioFormat(sampleRate: info.sample_freq, sample: .float, channels: UInt8(info.channels))
        totalFrames = max(0, Int64(mpc_streaminfo_get_length_samples(&info)))
        bitRate = Int(info.average_bitrate / 1000)
    }

    deinit {
        mpc_demux_exit(demux)
        reader.deallocate()
    }
}

/// Decodes frame by frame (1152 samples each) into a buffer of its own and hands them out
/// as asked; a seek goes to the exact sample.
final class MusepackDecoder: AudioDecoder {
    private let demuxer: MusepackDemuxer
    private var frame = [Float](repeating: 0, count: Int(MPC_DECODER_BUFFER_LENGTH))
    /// Samples (all channels) decoded and not handed out yet, from `pending` in `frame`.
    private var pendingStart = 0
    private var pendingCount = 0
    private var ended = false

    var format: AudioFormat { demuxer.format }
    var totalFrames: Int64? { demuxer.totalFrames }
    var bitRate: Int { demuxer.bitRate }

    init(_ demuxer: MusepackDemuxer) { self.demuxer = demuxer }

    func decode(into buffer: UnsafeMutableRawBufferPointer) throws(DecoderError) -> Int {
        let channels = Int(format.channels)
        let wanted = buffer.count / (4 * channels)
        guard wanted > 0 else { return 0 }
        if pendingCount == 0 {
            guard !ended else { return 0 }
            var info = mpc_frame_info()
            let status = frame.withUnsafeMutableBufferPointer { samples -> mpc_status in
                info.buffer = samples.baseAddress
                return mpc_demux_decode(demuxer.demux, &info)
            }
            if let failure = demuxer.context.failure { throw DecoderError(failure.message) }
            guard status == MPC_STATUS_OK else { throw DecoderError("Musepack decoding failed (status \(status.rawValue))") }
            if info.bits == -1 {
                ended = true
                return 0
            }
            pendingStart = 0
            pendingCount = Int(info.samples) * channels
        }
        let frames = min(wanted, pendingCount / channels)
        frame.withUnsafeBufferPointer { samples in
            buffer.baseAddress!.copyMemory(from: samples.baseAddress! + pendingStart, byteCount: frames * channels * 4)
        }
        pendingStart += frames * channels
        pendingCount -= frames * channels
        return frames
    }

    func seek(toFrame frame: Int64) throws(DecoderError) {
        guard mpc_demux_seek_sample(demuxer.demux, UInt64(max(0, frame))) == MPC_STATUS_OK else {
            throw DecoderError("Musepack seek failed")
        }
        pendingCount = 0
        ended = false
    }
}
