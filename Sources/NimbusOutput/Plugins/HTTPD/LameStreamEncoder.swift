import CLame
import NimbusModel

/// `encoder "lame"`: MP3 through LAME, by `quality` (VBR, MPD's `lame_set_VBR_q`, 0 best … 9)
/// or `bitrate` (CBR kbit/s; 192 when neither is given, where MPD refuses the block).
final class LameStreamEncoder: StreamEncoder {
    let contentType = "audio/mpeg"
    let header: [UInt8] = []
    private let lame: OpaquePointer
    private let channels: Int
    private var buffer: [UInt8] = []

    init(_ format: AudioFormat, quality: Float?, bitrate: Int?) throws(OutputError) {
        guard let lame = lame_init() else { throw OutputError("cannot create a LAME encoder") }
        self.lame = lame
        channels = Int(format.channels)
        if let quality {
            lame_set_VBR(lame, vbr_rh)
            lame_set_VBR_q(lame, Int32(max(0, min(9, quality))))
        } else {
            lame_set_brate(lame, Int32(bitrate ?? 192))
        }
        lame_set_num_channels(lame, Int32(format.channels))
        lame_set_in_samplerate(lame, Int32(format.sampleRate))
        lame_set_out_samplerate(lame, Int32(format.sampleRate))
        // `deinit` closes LAME, also after this throw.
        guard format.channels <= 2, lame_init_params(lame) >= 0 else {
            throw OutputError("LAME does not take these settings (\(format))")
        }
    }

    deinit { lame_close(lame) }

    func encode(_ pcm: UnsafeRawBufferPointer) throws(OutputError) -> [UInt8] {
        let samples = pcm.bindMemory(to: Int16.self)
        let frames = samples.count / channels
        guard frames > 0 else { return [] }
        // LAME's documented worst case: 1.25 × samples + 7200.
        let capacity = frames * 5 / 4 + 7200
        if buffer.count < capacity { buffer = [UInt8](repeating: 0, count: capacity) }
        let count: Int32
        if channels == 2 {
            count = lame_encode_buffer_interleaved(
                lame, UnsafeMutablePointer(mutating: samples.baseAddress!), Int32(frames), &buffer, Int32(capacity))
        } else {
            count = lame_encode_buffer(lame, samples.baseAddress!, samples.baseAddress!, Int32(frames), &buffer, Int32(capacity))
        }
        guard count >= 0 else { throw OutputError("MP3 encoding failed (\(count))") }
        return Array(buffer[..<Int(count)])
    }

    func finish() -> [UInt8] {
        var tail = [UInt8](repeating: 0, count: 7200)
        let count = lame_encode_flush(lame, &tail, Int32(tail.count))
        return count > 0 ? Array(tail[..<Int(count)]) : []
    }
}
