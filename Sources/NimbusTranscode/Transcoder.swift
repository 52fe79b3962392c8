import Glibc
import NimbusDecoder
import NimbusEncoder
import NimbusModel
import NimbusPCM
import NimbusSupport

/// One song made into another format as it is read: the decoder's PCM, converted to what the
/// encoder takes (at most two channels; 16 bits, or floats at 48 kHz for Opus), encoded at a constant bit
/// rate, handed on as the encoder gives it. It runs on a transcoding worker and blocks on its
/// sink, so a phone that reads slowly slows its encode and one that goes away stops it.
public final class Transcoder {
    public let format: TranscodeFormat
    public let kbps: Int
    private let decoder: any AudioDecoder
    private let converter: FilterChain
    private let encoder: any Encoder
    /// Frames the encoder will be given, when known; with a rate change the resampler's last
    /// few frames are cut or filled to it (`evensEnd`), so an MP3's tag sent first holds.
    private let expectedFrames: Int64?
    private let evensEnd: Bool
    private let outputFrameBytes: Int
    private var given: Int64 = 0
    /// At most this many frames are cut or added at the end: more means the length was wrong.
    static let endSlack: Int64 = 64

    public struct Failure: Error, CustomStringConvertible {
        public let description: String
        init(_ description: String) { self.description = description }
    }

    /// `seconds`: where in the song to start (`timeOffset`); the decoder seeks there exactly,
    /// so nothing before it is decoded.
    public init(decoder: any AudioDecoder, format: TranscodeFormat, kbps: Int, startingAt seconds: Double = 0) throws(Failure) {
        self.decoder = decoder
        self.format = format
        self.kbps = kbps
        let input = decoder.format
        guard input.sample != .dsd, input.sampleRate > 0, input.channels > 0 else { throw Failure("cannot transcode \(input)") }
        let start = seconds > 0 ? Int64(seconds * Double(input.sampleRate)) : 0
        if start > 0 {
            do {
                try decoder.seek(toFrame: start)
            } catch {
                throw Failure("cannot start at \(seconds) s: \(error)")
            }
        }
        let channels = min(input.channels, 2)
        // Opus works in floats: it gets them straight from the converter, undithered.
        let output = AudioFormat(sampleRate: Self.rate(for: format, input: input.sampleRate), sample: format == .opus ? .float : .s16, channels: channels)
        // What the encoder will be given, when the decoder knows the song's exact length: a
        // changed rate makes it the same duration at the new rate (the end is evened to it).
        expectedFrames = decoder.totalFrames.map { total in
            let left = max(0, total - start)
            return output.sampleRate == input.sampleRate ? left : Int64((Double(left) * Double(output.sampleRate) / Double(input.sampleRate)).rounded())
        }
        evensEnd = output.sampleRate != input.sampleRate
        outputFrameBytes = output.frameBytes
        // libswresample for the rate, as `ffmpeg` converts for the phones' lossy formats.
        converter = FilterChain(from: input, to: output, rates: .swresample)
        guard let plugin = EncoderRegistry.standard.plugin(named: format.encoderName) else {
            throw Failure("no \(format.encoderName) encoder")
        }
        do {
            encoder = try plugin.make(output, EncoderSettings(plugin.constantBitrate(kbps), file: .some(expectedFrames)))
        } catch {
            throw Failure(error.description)
        }
    }

    /// The transcode's exact length in bytes when it is known before the first byte (MP3 of
    /// a song of known length): `estimateContentLength` then promises no more than it sends.
    public var exactLength: Int64? { encoder.exactLength }
    /// After `run`: bytes for the start of the kept file in place of those sent (see `Encoder`).
    public var finalHeader: [UInt8]? { encoder.finalHeader }

    /// The encoders' rates: Opus is 48 kHz only; LAME and AAC take the usual ones, anything
    /// else goes to the nearest of 44.1 and 48 kHz's families.
    static func rate(for format: TranscodeFormat, input: UInt32) -> UInt32 {
        if format == .opus { return 48000 }
        let usual: [UInt32] = [8000, 11025, 12000, 16000, 22050, 24000, 32000, 44100, 48000]
        if usual.contains(input) { return input }
        return input % 11025 == 0 ? 44100 : 48000
    }

    /// Encodes to the end, handing each piece to `sink`; false from `sink` stops at once.
    /// True when the whole song was made. `sink` hears after every chunk decoded, with no
    /// bytes when the encoder kept them all (an Ogg page takes a quarter of a second of
    /// Opus), so a phone gone is noticed within one chunk.
    public func run(_ sink: (UnsafeRawBufferPointer) -> Bool) throws(Failure) -> Bool {
        func give(_ bytes: [UInt8]) -> Bool { bytes.withUnsafeBytes { sink($0) } }
        guard give(encoder.header) else { return false }
        let frames = 4096
        var buffer = [UInt8](repeating: 0, count: frames * decoder.format.frameBytes)
        while true {
            let count: Int
            do {
                count = try buffer.withUnsafeMutableBytes { raw throws(DecoderError) in try decoder.decode(into: raw) }
            } catch {
                throw Failure("decoding failed: \(error)")
            }
            guard count > 0 else { break }
            var encoded: [UInt8] = []
            var failure: EncoderError?
            buffer.withUnsafeBytes { raw in
                converter.convert(UnsafeRawBufferPointer(rebasing: raw[..<(count * decoder.format.frameBytes)]), volume: 100) { pcm in
                    do throws(EncoderError) { encoded = try encode(pcm, last: false) } catch { failure = error }
                }
            }
            if let failure { throw Failure("encoding failed: \(failure.description)") }
            guard give(encoded) else { return false }
        }
        // The resampler's last few milliseconds, so the transcode is as long as the song.
        var tail: [UInt8] = []
        var failure: EncoderError?
        converter.flush(volume: 100) { pcm in
            do throws(EncoderError) { tail = try encode(pcm, last: true) } catch { failure = error }
        }
        do throws(EncoderError) { tail += try evenTheEnd() } catch { failure = error }
        if let failure { throw Failure("encoding failed: \(failure.description)") }
        guard give(tail) else { return false }
        return give(encoder.finish())
    }

    /// Encodes converted PCM; at the end of a rate-changed song, what the resampler gives
    /// beyond the expected length (a few frames) is cut.
    private func encode(_ pcm: UnsafeRawBufferPointer, last: Bool) throws(EncoderError) -> [UInt8] {
        var pcm = pcm
        let frames = Int64(pcm.count / outputFrameBytes)
        if last, evensEnd, let expected = expectedFrames, given + frames > expected, given + frames - expected <= Self.endSlack {
            let kept = Int(max(0, expected - given)) * outputFrameBytes
            pcm = UnsafeRawBufferPointer(rebasing: pcm[..<kept])
        }
        given += Int64(pcm.count / outputFrameBytes)
        return try encoder.encode(pcm)
    }

    /// Silence for the frames a rate-changed song's resampler fell short of the expected length by.
    private func evenTheEnd() throws(EncoderError) -> [UInt8] {
        guard evensEnd, let expected = expectedFrames, given < expected, expected - given <= Self.endSlack else { return [] }
        let silence = [UInt8](repeating: 0, count: Int(expected - given) * outputFrameBytes)
        given = expected
        var encoded: [UInt8] = []
        var failure: EncoderError?
        silence.withUnsafeBytes { raw in
            do throws(EncoderError) { encoded = try encoder.encode(raw) } catch { failure = error }
        }
        if let failure { throw failure }
        return encoded
    }
}
