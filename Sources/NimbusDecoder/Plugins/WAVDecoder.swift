import NimbusInput
import NimbusModel

/// WAV playback: raw PCM from the data chunk; 24-bit packed samples widen into 32-bit words
/// (MPD's S24_P32), 8-bit unsigned becomes signed.
final class WAVDecoder: AudioDecoder {
    private let stream: any InputStream
    private let layout: RIFFLayout
    let format: AudioFormat
    let totalFrames: Int64?
    private var frame: Int64 = 0
    private var raw: [UInt8] = []

    init(_ stream: any InputStream) throws(DecoderError) {
        self.stream = stream
        layout = try RIFFLayout.read(stream)
        guard let format = layout.format.audioFormat else { throw DecoderError("unsupported WAV format") }
        self.format = format
        totalFrames = Int64(layout.dataLength) / Int64(layout.format.blockAlign)
        try seek(toFrame: 0)
    }

    var bitRate: Int { Int(layout.format.sampleRate) * Int(layout.format.blockAlign) * 8 / 1000 }

    func decode(into buffer: UnsafeMutableRawBufferPointer) throws(DecoderError) -> Int {
        let blockAlign = Int(layout.format.blockAlign)
        let remaining = Int((totalFrames ?? 0) - frame)
        let frames = min(buffer.count / format.frameBytes, remaining)
        guard frames > 0 else { return 0 }
        let bytes: [UInt8]
        do {
            bytes = try stream.read(count: frames * blockAlign)
        } catch {
            throw DecoderError(error.message)
        }
        let got = bytes.count / blockAlign
        convert(bytes, frames: got, into: buffer)
        frame += Int64(got)
        return got
    }

    private func convert(_ bytes: [UInt8], frames: Int, into buffer: UnsafeMutableRawBufferPointer) {
        let samples = frames * Int(format.channels)
        switch (format.sample, layout.format.bitsPerSample) {
        case (.s24, 24):
            let output = buffer.bindMemory(to: Int32.self)
            for index in 0..<samples {
                let value = Int32(bytes[index * 3]) | Int32(bytes[index * 3 + 1]) << 8 | Int32(Int8(bitPattern: bytes[index * 3 + 2])) << 16
                output[index] = value
            }
        case (.s8, _):
            for index in 0..<samples { buffer[index] = bytes[index] &- 0x80 }
        default:
            bytes.withUnsafeBytes { buffer.baseAddress!.copyMemory(from: $0.baseAddress!, byteCount: samples * format.sample.bytes) }
        }
    }

    func seek(toFrame target: Int64) throws(DecoderError) {
        let clamped = max(0, min(target, totalFrames ?? 0))
        do {
            try stream.seek(to: layout.dataOffset + clamped * Int64(layout.format.blockAlign))
        } catch {
            throw DecoderError(error.message)
        }
        frame = clamped
    }
}

extension WAVPlugin {
    public func openDecoder(_ stream: any InputStream) throws(DecoderError) -> any AudioDecoder { try WAVDecoder(stream) }
}
