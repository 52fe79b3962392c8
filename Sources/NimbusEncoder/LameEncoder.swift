import CLame
import NimbusModel

/// `encoder "lame"`: MP3 through LAME, by `quality` (VBR, MPD's `lame_set_VBR_q`, 0 best … 9)
/// or `bitrate` (CBR kbit/s; 192 when neither is given, where MPD refuses the block).
///
/// An endless stream (the httpd output) carries no Xing tag: LAME's placeholder for it is an
/// empty frame a player hears as 26 ms of silence. A file (a phone's transcode) of a known
/// number of samples begins with the tag LAME would write at its end, computed beforehand
/// (`MP3Layout`), so even the first, streamed play is gapless and its length exact; when the
/// samples turn out otherwise, `finalHeader` is the tag LAME wrote, for the kept copy.
final class LameEncoder: Encoder {
    let contentType = "audio/mpeg"
    let header: [UInt8] = []
    private let lame: OpaquePointer
    private let channels: Int
    private var buffer: [UInt8] = []
    /// The tag frame sent in place of LAME's placeholder, and how far the output has gone.
    private var predictedTag: [UInt8]?
    private var predicted: (frames: Int, bytes: Int64)?
    private var written: Int64 = 0
    private let writesTag: Bool
    private(set) var finalHeader: [UInt8]?

    var exactLength: Int64? { predicted?.bytes }

    /// `file`: the number of samples of a file to be made (nil: unknown), or nil for a stream.
    init(_ format: AudioFormat, quality: Float?, bitrate: Int?, file: Int64?? = nil) throws(EncoderError) {
        lame = try Self.make(format, quality: quality, bitrate: bitrate, tag: file != nil)
        channels = Int(format.channels)
        writesTag = file != nil
        if let samples = file ?? nil, quality == nil, let bitrate {
            let layout = MP3Layout(sampleRate: Int(format.sampleRate), channels: channels, kbps: bitrate)
            if let template = try? Self.template(format, bitrate: bitrate), let tag = layout.tagFrame(samples: samples, template: template) {
                predictedTag = tag
                predicted = (layout.audioFrames(samples: samples), layout.totalBytes(samples: samples))
            }
        }
    }

    deinit { lame_close(lame) }

    private static func make(_ format: AudioFormat, quality: Float?, bitrate: Int?, tag: Bool) throws(EncoderError) -> OpaquePointer {
        guard let lame = lame_init() else { throw EncoderError("cannot create a LAME encoder") }
        if let quality {
            lame_set_VBR(lame, vbr_rh)
            lame_set_VBR_q(lame, Int32(max(0, min(9, quality))))
        } else {
            lame_set_brate(lame, Int32(bitrate ?? 192))
        }
        lame_set_num_channels(lame, Int32(format.channels))
        lame_set_in_samplerate(lame, Int32(format.sampleRate))
        lame_set_out_samplerate(lame, Int32(format.sampleRate))
        lame_set_bWriteVbrTag(lame, tag ? 1 : 0)
        guard format.channels <= 2, lame_init_params(lame) >= 0 else {
            lame_close(lame)
            throw EncoderError("LAME does not take these settings (\(format))")
        }
        return lame
    }

    /// The tag frame LAME writes with these settings (for a song of one sample): what it puts
    /// in the fields that do not depend on the song.
    private static func template(_ format: AudioFormat, bitrate: Int) throws(EncoderError) -> [UInt8] {
        let lame = try make(format, quality: nil, bitrate: bitrate, tag: true)
        defer { lame_close(lame) }
        var silence = [Int16](repeating: 0, count: 2)
        var scratch = [UInt8](repeating: 0, count: 16 * 1024)
        _ = lame_encode_buffer(lame, &silence, &silence, 1, &scratch, Int32(scratch.count))
        _ = lame_encode_flush(lame, &scratch, Int32(scratch.count))
        var tag = [UInt8](repeating: 0, count: 4096)
        let count = lame_get_lametag_frame(lame, &tag, tag.count)
        guard count > 0, count <= tag.count else { throw EncoderError("LAME wrote no tag") }
        return Array(tag[..<count])
    }

    func encode(_ pcm: UnsafeRawBufferPointer) throws(EncoderError) -> [UInt8] {
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
        guard count >= 0 else { throw EncoderError("MP3 encoding failed (\(count))") }
        return handOut(Array(buffer[..<Int(count)]))
    }

    func finish() -> [UInt8] {
        var tail = [UInt8](repeating: 0, count: 7200)
        let count = lame_encode_flush(lame, &tail, Int32(tail.count))
        let last = handOut(count > 0 ? Array(tail[..<Int(count)]) : [])
        if writesTag, predicted.map({ $0.frames != Int(lame_get_frameNum(lame)) || $0.bytes != written }) ?? true {
            var tag = [UInt8](repeating: 0, count: 4096)
            let size = lame_get_lametag_frame(lame, &tag, tag.count)
            finalHeader = size > 0 && size <= tag.count ? Array(tag[..<size]) : nil
        }
        return last
    }

    /// The tag LAME itself would put first now (after `finish`: the real one), for the tests
    /// that hold the prediction against it.
    func lameTag() -> [UInt8] {
        var tag = [UInt8](repeating: 0, count: 4096)
        let size = lame_get_lametag_frame(lame, &tag, tag.count)
        return size > 0 && size <= tag.count ? Array(tag[..<size]) : []
    }

    /// The bytes as LAME gave them, with the predicted tag over its placeholder.
    private func handOut(_ bytes: [UInt8]) -> [UInt8] {
        var bytes = bytes
        if let tag = predictedTag, written < Int64(tag.count) {
            let start = Int(written), end = min(tag.count, start + bytes.count)
            bytes.replaceSubrange(0..<(end - start), with: tag[start..<end])
        }
        written += Int64(bytes.count)
        return bytes
    }
}
