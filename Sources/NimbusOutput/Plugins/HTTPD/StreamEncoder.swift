import NimbusModel

/// Turns the output's PCM (16-bit, interleaved, in `format`) into the bytes of one endless
/// stream. A listener who joins late gets `header` first, then whatever `encode` returns
/// from then on; each result is whole pages or frames, so it can be dropped as a unit for a
/// listener too slow to keep up. The phone API's transcoder uses the same encoders for files.
public protocol StreamEncoder: AnyObject {
    var contentType: String { get }
    var header: [UInt8] { get }
    func encode(_ pcm: UnsafeRawBufferPointer) throws(OutputError) -> [UInt8]
    /// The end of the stream: whatever the encoder still holds.
    func finish() -> [UInt8]
    /// A file's exact length in bytes, known before its first byte (nil: not known).
    var exactLength: Int64? { get }
    /// After `finish`: bytes that belong at the file's start in place of what was sent there
    /// (an MP3's tag, once the real counts differ from the predicted ones); nil: none.
    var finalHeader: [UInt8]? { get }
}

extension StreamEncoder {
    public var exactLength: Int64? { nil }
    public var finalHeader: [UInt8]? { nil }
}

/// The encoders for one song made into a file (a transcode for a phone): constant bit rate
/// in kbit/s; `format` is what the encoder takes (Opus: 48 kHz, 16 bits or floats; MP3: 16 bits).
public enum FileEncoders {
    public static func opus(_ format: AudioFormat, kbps: Int) throws(OutputError) -> any StreamEncoder {
        let encoder = try OpusStreamEncoder(format, bitrate: String(kbps * 1000), complexity: 10, signal: "music")
        encoder.trimsEnd = true
        return encoder
    }

    /// `samples`: how many the song will give, when known — the tag then goes out first.
    public static func mp3(_ format: AudioFormat, kbps: Int, samples: Int64?) throws(OutputError) -> any StreamEncoder {
        try LameStreamEncoder(format, quality: nil, bitrate: kbps, file: .some(samples))
    }
}

/// `encoder "wave"`: the PCM as it is, after a RIFF header whose lengths say "unknown" (the
/// largest values, as streaming WAV writers do).
final class WaveEncoder: StreamEncoder {
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

    func encode(_ pcm: UnsafeRawBufferPointer) throws(OutputError) -> [UInt8] { Array(pcm) }
    func finish() -> [UInt8] { [] }
}
