import NimbusModel

/// `encoder "wave"`: the PCM as it is, after a RIFF header whose lengths say "unknown" (the
/// largest values, as streaming WAV writers do).
final class WaveEncoder: Encoder {
    let contentType = "audio/wav"
    let header: [UInt8]

    init(_ format: AudioFormat) {
        var bytes: [UInt8] = []
        func word(_ value: UInt32) { withUnsafeBytes(of: value.littleEndian) { bytes += $0 } }
        func half(_ value: UInt16) { withUnsafeBytes(of: value.littleEndian) { bytes += $0 } }
        let channels = UInt16(format.channels)
        bytes += Array("RIFF".utf8)
        word(0xFFFF_FFFF)
        bytes += Array("WAVEfmt ".utf8)
        word(16)
        half(1)
        half(channels)
        word(format.sampleRate)
        word(format.sampleRate * UInt32(channels) * 2)
        half(channels * 2)
        half(16)
        bytes += Array("data".utf8)
        word(0xFFFF_FFFF)
        header = bytes
    }

    func encode(_ pcm: UnsafeRawBufferPointer) throws(EncoderError) -> [UInt8] { Array(pcm) }
    func finish() -> [UInt8] { [] }
}
