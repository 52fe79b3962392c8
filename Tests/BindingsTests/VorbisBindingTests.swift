import CVorbis
import Foundation
import NimbusHarness
import XCTest

/// Encodes a sine with libvorbisenc into memory and decodes it back with libvorbisfile's
/// callback API, as the decoder plugin will read from an input stream.
final class VorbisBindingTests: XCTestCase {
    final class MemoryFile {
        let bytes: [UInt8]
        var position = 0
        init(_ bytes: [UInt8]) { self.bytes = bytes }
    }

    func testEncodeThenDecodeRoundTrip() throws {
        let frames = 44100
        let encoded = try encode(sineS16(frames: frames))
        XCTAssertEqual(Array(encoded.prefix(4)), Array("OggS".utf8))

        let file = MemoryFile(encoded)
        let vf = UnsafeMutablePointer<OggVorbis_File>.allocate(capacity: 1)
        defer { vf.deallocate() }
        let callbacks = ov_callbacks(
            read_func: { buffer, size, count, context in
                let file = Unmanaged<MemoryFile>.fromOpaque(context!).takeUnretainedValue()
                let wanted = min(size * count, file.bytes.count - file.position)
                file.bytes.withUnsafeBytes { raw in
                    buffer!.copyMemory(from: raw.baseAddress! + file.position, byteCount: wanted)
                }
                file.position += wanted
                return wanted / max(size, 1)
            },
            seek_func: { context, offset, whence in
                let file = Unmanaged<MemoryFile>.fromOpaque(context!).takeUnretainedValue()
                switch whence {
                case SEEK_SET: file.position = Int(offset)
                case SEEK_CUR: file.position += Int(offset)
                default: file.position = file.bytes.count + Int(offset)
                }
                return 0
            },
            close_func: { _ in 0 },
            tell_func: { context in
                Int(Unmanaged<MemoryFile>.fromOpaque(context!).takeUnretainedValue().position)
            })
        XCTAssertEqual(ov_open_callbacks(Unmanaged.passUnretained(file).toOpaque(), vf, nil, 0, callbacks), 0)
        defer { ov_clear(vf) }
        XCTAssertEqual(ov_pcm_total(vf, -1), Int64(frames))
        XCTAssertEqual(ov_info(vf, -1)!.pointee.rate, 44100)
        var decodedBytes = 0
        var buffer = [CChar](repeating: 0, count: 8192)
        var section: Int32 = 0
        while true {
            let count = ov_read(vf, &buffer, Int32(buffer.count), 0, 2, 1, &section)
            XCTAssertGreaterThanOrEqual(count, 0)
            if count <= 0 { break }
            decodedBytes += count
        }
        XCTAssertEqual(decodedBytes, frames * 4)
        XCTAssertEqual(ov_time_seek(vf, 0.5), 0)
        XCTAssertEqual(ov_pcm_tell(vf), 22050)
    }

    private func encode(_ samples: [Int16]) throws -> [UInt8] {
        var info = vorbis_info()
        vorbis_info_init(&info)
        defer { vorbis_info_clear(&info) }
        XCTAssertEqual(vorbis_encode_init_vbr(&info, 2, 44100, 0.4), 0)
        var comment = vorbis_comment()
        vorbis_comment_init(&comment)
        defer { vorbis_comment_clear(&comment) }
        vorbis_comment_add_tag(&comment, "TITLE", "Binding test")
        var dsp = vorbis_dsp_state()
        var block = vorbis_block()
        vorbis_analysis_init(&dsp, &info)
        vorbis_block_init(&dsp, &block)
        defer {
            vorbis_block_clear(&block)
            vorbis_dsp_clear(&dsp)
        }
        var stream = ogg_stream_state()
        ogg_stream_init(&stream, 1)
        defer { ogg_stream_clear(&stream) }
        var output: [UInt8] = []
        var page = ogg_page()
        func append(_ page: ogg_page) {
            output.append(contentsOf: UnsafeBufferPointer(start: page.header, count: page.header_len))
            output.append(contentsOf: UnsafeBufferPointer(start: page.body, count: page.body_len))
        }
        var header = ogg_packet(), commentPacket = ogg_packet(), codebooks = ogg_packet()
        vorbis_analysis_headerout(&dsp, &comment, &header, &commentPacket, &codebooks)
        ogg_stream_packetin(&stream, &header)
        ogg_stream_packetin(&stream, &commentPacket)
        ogg_stream_packetin(&stream, &codebooks)
        while ogg_stream_flush(&stream, &page) != 0 { append(page) }

        let frames = samples.count / 2
        var offset = 0
        while true {
            let chunk = min(4096, frames - offset)
            if chunk > 0 {
                let channels = vorbis_analysis_buffer(&dsp, Int32(chunk))!
                for frame in 0..<chunk {
                    channels[0]![frame] = Float(samples[2 * (offset + frame)]) / 32768
                    channels[1]![frame] = Float(samples[2 * (offset + frame) + 1]) / 32768
                }
                offset += chunk
            }
            vorbis_analysis_wrote(&dsp, Int32(chunk))
            var packet = ogg_packet()
            while vorbis_analysis_blockout(&dsp, &block) == 1 {
                vorbis_analysis(&block, nil)
                vorbis_bitrate_addblock(&block)
                while vorbis_bitrate_flushpacket(&dsp, &packet) == 1 {
                    ogg_stream_packetin(&stream, &packet)
                    while ogg_stream_pageout(&stream, &page) != 0 { append(page) }
                }
            }
            if chunk == 0 { break }
        }
        while ogg_stream_flush(&stream, &page) != 0 { append(page) }
        return output
    }
}
