import CFLAC
import Foundation
import NimbusHarness
import XCTest

/// Encodes PCM with libFLAC's stream encoder into memory and decodes it with the stream
/// decoder's callbacks; FLAC is lossless, so the samples must come back identical.
final class FLACBindingTests: XCTestCase {
    final class Buffer {
        var bytes: [UInt8] = []
        var position = 0
        var decoded: [Int16] = []
        var totalSamples: UInt64 = 0
    }

    func testLosslessRoundTripAndSeek() throws {
        let samples = sineS16(frames: 44100)
        let buffer = Buffer()
        let context = Unmanaged.passUnretained(buffer).toOpaque()

        let encoder = try XCTUnwrap(FLAC__stream_encoder_new())
        defer { FLAC__stream_encoder_delete(encoder) }
        FLAC__stream_encoder_set_channels(encoder, 2)
        FLAC__stream_encoder_set_bits_per_sample(encoder, 16)
        FLAC__stream_encoder_set_sample_rate(encoder, 44100)
        FLAC__stream_encoder_set_total_samples_estimate(encoder, 44100)
        let initStatus = FLAC__stream_encoder_init_stream(
            encoder,
            { _, data, bytes, _, _, context in
                Unmanaged<Buffer>.fromOpaque(context!).takeUnretainedValue().bytes
                    .append(contentsOf: UnsafeBufferPointer(start: data, count: bytes))
                return FLAC__STREAM_ENCODER_WRITE_STATUS_OK
            }, nil, nil, nil, context)
        XCTAssertEqual(initStatus, FLAC__STREAM_ENCODER_INIT_STATUS_OK)
        let wide = samples.map { FLAC__int32($0) }
        XCTAssertEqual(wide.withUnsafeBufferPointer {
            FLAC__stream_encoder_process_interleaved(encoder, $0.baseAddress, 44100)
        }, 1)
        XCTAssertEqual(FLAC__stream_encoder_finish(encoder), 1)
        XCTAssertEqual(Array(buffer.bytes.prefix(4)), Array("fLaC".utf8))

        let decoder = try XCTUnwrap(FLAC__stream_decoder_new())
        defer { FLAC__stream_decoder_delete(decoder) }
        let status = FLAC__stream_decoder_init_stream(
            decoder,
            { _, data, bytes, context in
                let buffer = Unmanaged<Buffer>.fromOpaque(context!).takeUnretainedValue()
                let count = min(bytes!.pointee, buffer.bytes.count - buffer.position)
                if count == 0 {
                    bytes!.pointee = 0
                    return FLAC__STREAM_DECODER_READ_STATUS_END_OF_STREAM
                }
                buffer.bytes.withUnsafeBufferPointer { data!.update(from: $0.baseAddress! + buffer.position, count: count) }
                buffer.position += count
                bytes!.pointee = count
                return FLAC__STREAM_DECODER_READ_STATUS_CONTINUE
            },
            { _, offset, context in
                Unmanaged<Buffer>.fromOpaque(context!).takeUnretainedValue().position = Int(offset)
                return FLAC__STREAM_DECODER_SEEK_STATUS_OK
            },
            { _, offset, context in
                offset!.pointee = UInt64(Unmanaged<Buffer>.fromOpaque(context!).takeUnretainedValue().position)
                return FLAC__STREAM_DECODER_TELL_STATUS_OK
            },
            { _, length, context in
                length!.pointee = UInt64(Unmanaged<Buffer>.fromOpaque(context!).takeUnretainedValue().bytes.count)
                return FLAC__STREAM_DECODER_LENGTH_STATUS_OK
            },
            { _, context in
                let buffer = Unmanaged<Buffer>.fromOpaque(context!).takeUnretainedValue()
                return buffer.position >= buffer.bytes.count ? 1 : 0
            },
            { _, frame, channels, context in
                let buffer = Unmanaged<Buffer>.fromOpaque(context!).takeUnretainedValue()
                for index in 0..<Int(frame!.pointee.header.blocksize) {
                    buffer.decoded.append(Int16(channels![0]![index]))
                    buffer.decoded.append(Int16(channels![1]![index]))
                }
                return FLAC__STREAM_DECODER_WRITE_STATUS_CONTINUE
            },
            { _, metadata, context in
                if metadata!.pointee.type == FLAC__METADATA_TYPE_STREAMINFO {
                    Unmanaged<Buffer>.fromOpaque(context!).takeUnretainedValue().totalSamples =
                        metadata!.pointee.data.stream_info.total_samples
                }
            },
            { _, _, _ in },
            context)
        XCTAssertEqual(status, FLAC__STREAM_DECODER_INIT_STATUS_OK)
        XCTAssertEqual(FLAC__stream_decoder_process_until_end_of_stream(decoder), 1)
        XCTAssertEqual(buffer.totalSamples, 44100)
        XCTAssertEqual(buffer.decoded, samples)

        buffer.decoded.removeAll()
        XCTAssertEqual(FLAC__stream_decoder_seek_absolute(decoder, 22050), 1)
        XCTAssertEqual(FLAC__stream_decoder_process_until_end_of_stream(decoder), 1)
        XCTAssertEqual(buffer.decoded, Array(samples[44100...]))
    }
}
