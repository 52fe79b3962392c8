import CMpg123
import Glibc
import NimbusInput
import NimbusModel

/// MP3 playback through libmpg123, gapless (encoder delay and padding from the LAME header
/// are trimmed), 16-bit output.
final class MP3Decoder: AudioDecoder {
    private let handle: MP3Handle
    let format: AudioFormat
    let totalFrames: Int64?

    init(_ stream: any InputStream) throws(DecoderError) {
        handle = try MP3Handle(stream)
        var rate = 0
        var channels: Int32 = 0
        var encoding: Int32 = 0
        guard mpg123_getformat(handle.handle, &rate, &channels, &encoding) == MPG123_OK.rawValue else {
            throw DecoderError(handle.lastError(default: "no MPEG audio frames found"))
        }
        format = AudioFormat(sampleRate: UInt32(rate), sample: .s16, channels: UInt8(channels))
        let length = mpg123_length(handle.handle)
        totalFrames = length > 0 ? Int64(length) : nil
    }

    var bitRate: Int {
        var info = mpg123_frameinfo2()
        return mpg123_info2(handle.handle, &info) == MPG123_OK.rawValue ? Int(info.bitrate) : 0
    }

    func decode(into buffer: UnsafeMutableRawBufferPointer) throws(DecoderError) -> Int {
        let frameBytes = format.frameBytes
        let capacity = buffer.count / frameBytes * frameBytes
        var filled = 0
        while filled < capacity {
            var done = 0
            let status = mpg123_read(handle.handle, buffer.baseAddress! + filled, capacity - filled, &done)
            filled += done
            if status == MPG123_DONE.rawValue { break }
            if status == MPG123_NEW_FORMAT.rawValue || status == MPG123_OK.rawValue {
                if done == 0 && status == MPG123_OK.rawValue { break }
                continue
            }
            if status == MPG123_NEED_MORE.rawValue { break }
            if filled > 0 { break }
            throw DecoderError(handle.lastError(default: "MP3 decoding failed"))
        }
        // libmpg123 reports a failed read as the end of the stream: it is not.
        if filled == 0, let failure = handle.context.failure { throw DecoderError(failure.message) }
        return filled / frameBytes
    }

    func seek(toFrame frame: Int64) throws(DecoderError) {
        guard mpg123_seek(handle.handle, off_t(frame), SEEK_SET) >= 0 else {
            throw DecoderError(handle.lastError(default: "seek failed"))
        }
    }
}

extension MP3Plugin {
    public func openDecoder(_ stream: any InputStream) throws(DecoderError) -> any AudioDecoder { try MP3Decoder(stream) }
}
