import CFLAC
import NimbusInput
import NimbusModel

/// FLAC through libFLAC: STREAMINFO for format and exact length, VORBIS_COMMENT for tags,
/// PICTURE for readpicture. `FLACPlugin(ogg: true)` is MPD's `oggflac`: the same codec in an
/// Ogg container (`flac --ogg`), tried for `.ogg`/`.oga` after Vorbis and Opus.
public struct FLACPlugin: DecoderPlugin {
    public let name: String
    public let suffixes: [String]
    public let mimeTypes: [String]
    /// FLAC in Ogg rather than native FLAC.
    let ogg: Bool

    public init(ogg: Bool = false) {
        self.ogg = ogg
        name = ogg ? "oggflac" : "flac"
        suffixes = ogg ? ["ogg", "oga"] : ["flac"]
        mimeTypes =
            ogg
            ? ["application/ogg", "application/x-ogg", "audio/ogg", "audio/x-flac+ogg", "audio/x-ogg"]
            : ["application/flac", "application/x-flac", "audio/flac", "audio/x-flac"]
    }

    public func scan(_ stream: any InputStream, options: ScanOptions) throws(DecoderError) -> ScanResult {
        guard let chain = FLAC__metadata_chain_new() else { throw DecoderError("out of memory") }
        defer { FLAC__metadata_chain_delete(chain) }
        let context = StreamContext(stream)
        try? stream.seek(to: 0)
        let callbacks = FLAC__IOCallbacks(
            read: { buffer, size, count, handle in
                let got = StreamContext.from(handle).readFully(buffer, size * count)
                return got < 0 ? 0 : got / max(size, 1)
            },
            write: nil,
            seek: { handle, offset, whence in StreamContext.from(handle).seek(offset, whence) < 0 ? -1 : 0 },
            tell: { handle in StreamContext.from(handle).stream.position },
            eof: { handle in StreamContext.from(handle).atEnd ? 1 : 0 },
            close: nil)
        let read = ogg ? FLAC__metadata_chain_read_ogg_with_callbacks : FLAC__metadata_chain_read_with_callbacks
        guard read(chain, context.pointer, callbacks) != 0 else {
            if let failure = context.failure ?? context.firstFailure { throw DecoderError(failure.message) }
            let status = FLAC__metadata_chain_status(chain)
            throw DecoderError("not a valid FLAC file (metadata chain status \(status.rawValue))")
        }
        let result = collect(chain, options: options)
        keepFirstFrames(of: stream, chain: chain)
        return result
    }

    /// A cloud song's first audio must not wait on the network: the head a scan reads holds
    /// the metadata it parsed, but a player also reads what the scan skipped (padding) and a
    /// FLAC frame is large (up to STREAMINFO's max frame size, often 10–20 KiB), the first one
    /// lying just past the metadata. Whatever of that head is missing is fetched now in the
    /// background, so `play` finds it cached.
    private func keepFirstFrames(of stream: any InputStream, chain: OpaquePointer) {
        guard stream.isRemote, let iterator = FLAC__metadata_iterator_new() else { return }
        defer { FLAC__metadata_iterator_delete(iterator) }
        FLAC__metadata_iterator_init(iterator, chain)
        guard let block = FLAC__metadata_iterator_get_block(iterator), block.pointee.type == FLAC__METADATA_TYPE_STREAMINFO else { return }
        let largest = Int64(block.pointee.data.stream_info.max_framesize)
        let audioStart = stream.position
        stream.prefetch(0..<(audioStart + 2 * (largest > 0 ? largest : 16 << 10)))
    }

    private func collect(_ chain: OpaquePointer, options: ScanOptions) -> ScanResult {
        var result = ScanResult()
        var collector = TagCollector()
        guard let iterator = FLAC__metadata_iterator_new() else { return result }
        defer { FLAC__metadata_iterator_delete(iterator) }
        FLAC__metadata_iterator_init(iterator, chain)
        repeat {
            guard let block = FLAC__metadata_iterator_get_block(iterator) else { continue }
            switch block.pointee.type {
            case FLAC__METADATA_TYPE_STREAMINFO:
                let info = block.pointee.data.stream_info
                result.format = FLACFormat.audioFormat(rate: info.sample_rate, bits: info.bits_per_sample, channels: info.channels)
                if info.total_samples > 0 && info.sample_rate > 0 {
                    collector.setDuration(Int(info.total_samples * 1000 / UInt64(info.sample_rate)))
                }
            case FLAC__METADATA_TYPE_VORBIS_COMMENT:
                let comments = block.pointee.data.vorbis_comment
                for index in 0..<Int(comments.num_comments) {
                    let entry = comments.comments[index]
                    let text = String(decoding: UnsafeBufferPointer(start: entry.entry, count: Int(entry.length)), as: UTF8.self)
                    VorbisComments.add(text, to: &collector, result: &result, options: options)
                }
            case FLAC__METADATA_TYPE_PICTURE where options.picture && result.picture == nil:
                let picture = block.pointee.data.picture
                let mime = picture.mime_type.map { String(cString: $0) }
                result.picture = Picture(
                    mimeType: mime?.isEmpty == false ? mime : nil,
                    data: Array(UnsafeBufferPointer(start: picture.data, count: Int(picture.data_length))))
            default:
                break
            }
        } while FLAC__metadata_iterator_next(iterator) != 0
        result.tag = collector.tag
        result.replayGain = collector.replayGain
        result.mixRamp = collector.mixRamp
        return result
    }
}

enum FLACFormat {
    static func audioFormat(rate: UInt32, bits: UInt32, channels: UInt32) -> AudioFormat? {
        let sample: SampleFormat
        switch bits {
        case 1...8: sample = .s8
        case 9...16: sample = .s16
        case 17...24: sample = .s24
        default: sample = .s32
        }
        guard rate > 0, channels > 0 else { return nil }
        return AudioFormat(sampleRate: rate, sample: sample, channels: UInt8(channels))
    }
}
