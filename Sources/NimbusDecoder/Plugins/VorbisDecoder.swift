import CVorbis
import NimbusInput
import NimbusModel

/// Ogg Vorbis playback through libvorbisfile's float API; sample-exact seeking with
/// ov_pcm_seek and gapless by construction (granule positions give the exact length).
final class VorbisDecoder: AudioDecoder {
    private let file: VorbisFile
    let format: AudioFormat
    let totalFrames: Int64?
    private var section: Int32 = 0

    init(_ stream: any InputStream) throws(DecoderError) {
        file = try VorbisFile(stream)
        guard let info = ov_info(file.handle, -1)?.pointee, info.rate > 0, info.channels > 0 else {
            throw DecoderError("no Vorbis stream information")
        }
        format = AudioFormat(sampleRate: UInt32(info.rate), sample: .float, channels: UInt8(clamping: info.channels))
        let total = ov_pcm_total(file.handle, -1)
        totalFrames = total > 0 ? total : nil
    }

    var bitRate: Int {
        let instant = ov_bitrate_instant(file.handle)
        return instant > 0 ? instant / 1000 : max(0, ov_bitrate(file.handle, -1) / 1000)
    }

    func decode(into buffer: UnsafeMutableRawBufferPointer) throws(DecoderError) -> Int {
        let channels = Int(format.channels)
        let capacity = buffer.count / (channels * 4)
        let output = buffer.bindMemory(to: Float.self)
        var filled = 0
        while filled < capacity {
            var planes: UnsafeMutablePointer<UnsafeMutablePointer<Float>?>?
            let frames = ov_read_float(file.handle, &planes, Int32(capacity - filled), &section)
            if frames == 0 {
                // A read that failed looks like the end to libvorbisfile: it is not.
                if filled == 0, let failure = file.context.failure { throw DecoderError(failure.message) }
                break
            }
            if frames < 0 {
                if frames == OV_HOLE { continue }
                if filled > 0 { break }
                throw DecoderError("Vorbis decoding failed (\(frames))")
            }
            // Interleave libvorbis's planes; stereo (nearly every file) gets a tight loop.
            guard let planes else { break }
            let target = output.baseAddress! + filled * channels
            if channels == 2, let left = planes[0], let right = planes[1] {
                for frame in 0..<Int(frames) {
                    target[frame * 2] = left[frame]
                    target[frame * 2 + 1] = right[frame]
                }
            } else {
                for channel in 0..<channels {
                    guard let plane = planes[channel] else { continue }
                    for frame in 0..<Int(frames) { target[frame * channels + channel] = plane[frame] }
                }
            }
            filled += Int(frames)
        }
        return filled
    }

    func seek(toFrame frame: Int64) throws(DecoderError) {
        guard ov_pcm_seek(file.handle, frame) == 0 else { throw DecoderError("seek failed") }
    }
}

extension VorbisPlugin {
    public func openDecoder(_ stream: any InputStream) throws(DecoderError) -> any AudioDecoder { try VorbisDecoder(stream) }
}
