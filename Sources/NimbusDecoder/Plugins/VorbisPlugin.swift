import CVorbis
import NimbusInput
import NimbusModel

/// Ogg Vorbis through libvorbisfile: comments, exact length from the last granule position,
/// and the float output format MPD reports (`44100:f:2`).
public struct VorbisPlugin: DecoderPlugin {
    public let name = "vorbis"
    public let suffixes = ["ogg", "oga"]
    public let mimeTypes = [
        "application/ogg", "application/x-ogg", "audio/ogg", "audio/vorbis", "audio/vorbis+ogg", "audio/x-ogg",
        "audio/x-vorbis", "audio/x-vorbis+ogg",
    ]

    public init() {}

    public func scan(_ stream: any InputStream, options: ScanOptions) throws(DecoderError) -> ScanResult {
        let file = try VorbisFile(stream)
        var result = ScanResult()
        var collector = TagCollector()
        if let info = ov_info(file.handle, -1)?.pointee, info.rate > 0 {
            result.format = AudioFormat(sampleRate: UInt32(info.rate), sample: .float, channels: UInt8(clamping: info.channels))
            let total = ov_pcm_total(file.handle, -1)
            if total > 0 { collector.setDuration(frames: UInt64(total), rate: UInt32(info.rate)) }
        }
        if let comment = ov_comment(file.handle, -1)?.pointee {
            for index in 0..<Int(comment.comments) {
                guard let bytes = comment.user_comments[index] else { continue }
                let text = String(decoding: UnsafeBufferPointer(start: bytes, count: Int(comment.comment_lengths[index])).map { UInt8(bitPattern: $0) }, as: UTF8.self)
                VorbisComments.add(text, to: &collector, result: &result, options: options)
            }
        }
        result.tag = collector.tag
        result.replayGain = collector.replayGain
        result.mixRamp = collector.mixRamp
        return result
    }
}

/// One open OggVorbis_File over an InputStream; the struct must not move while open, so it is
/// heap-allocated. `deinit` is the one place it is cleared and freed — it also runs when `init`
/// throws (libvorbisfile leaves a struct it failed to open cleared, so ov_clear is safe).
final class VorbisFile {
    let handle: UnsafeMutablePointer<OggVorbis_File>
    /// libvorbisfile takes a failed read for the end of the stream; the failure is kept here.
    let context: StreamContext

    init(_ stream: any InputStream) throws(DecoderError) {
        context = StreamContext(stream)
        handle = .allocate(capacity: 1)
        handle.initialize(to: OggVorbis_File())
        try? stream.seek(to: 0)
        let callbacks = ov_callbacks(
            read_func: { buffer, size, count, pointer in
                let got = StreamContext.from(pointer).read(buffer, size * count)
                return got < 0 ? 0 : got / max(size, 1)
            },
            seek_func: { pointer, offset, whence in
                StreamContext.from(pointer).seek(offset, whence) < 0 ? -1 : 0
            },
            close_func: { _ in 0 },
            tell_func: { pointer in Int(StreamContext.from(pointer).stream.position) })
        let status = ov_open_callbacks(context.pointer, handle, nil, 0, callbacks)
        guard status == 0 else {
            if let failure = context.failure ?? context.firstFailure { throw DecoderError(failure.message) }
            throw DecoderError("not a valid Ogg Vorbis stream (\(status))")
        }
    }

    deinit {
        ov_clear(handle)
        handle.deallocate()
    }
}
