import Glibc
import NimbusDecoder
import NimbusModel
import NimbusOutput
import NimbusSupport

/// One song made into another format as it is read: the decoder's PCM, converted to what the
/// encoder takes (at most two channels; 16 bits, or floats at 48 kHz for Opus), encoded at a constant bit
/// rate, handed on as the encoder gives it. It runs on a transcoding worker and blocks on its
/// sink, so a phone that reads slowly slows its encode and one that goes away stops it.
public final class Transcoder {
    public let format: TranscodeFormat
    public let kbps: Int
    private let decoder: any AudioDecoder
    private let converter: TranscodeConversion
    private let encoder: any StreamEncoder

    public struct Failure: Error, CustomStringConvertible {
        public let description: String
        init(_ description: String) { self.description = description }
    }

    public init(decoder: any AudioDecoder, format: TranscodeFormat, kbps: Int) throws(Failure) {
        self.decoder = decoder
        self.format = format
        self.kbps = kbps
        let input = decoder.format
        guard input.sample != .dsd, input.sampleRate > 0, input.channels > 0 else { throw Failure("cannot transcode \(input)") }
        let channels = min(input.channels, 2)
        // Opus works in floats: it gets them straight from the converter, undithered.
        let output = AudioFormat(sampleRate: Self.rate(for: format, input: input.sampleRate), sample: format == .opus ? .float : .s16, channels: channels)
        do {
            converter = try TranscodeConversion(from: input, to: output)
        } catch {
            throw Failure(error.description)
        }
        do {
            switch format {
            case .opus: encoder = try FileEncoders.opus(output, kbps: kbps)
            case .mp3: encoder = try FileEncoders.mp3(output, kbps: kbps)
            case .aac: encoder = try AACEncoder(output, kbps: kbps)
            }
        } catch {
            throw Failure(error.description)
        }
    }

    /// The encoders' rates: Opus is 48 kHz only; LAME and AAC take the usual ones, anything
    /// else goes to the nearest of 44.1 and 48 kHz's families.
    static func rate(for format: TranscodeFormat, input: UInt32) -> UInt32 {
        if format == .opus { return 48000 }
        let usual: [UInt32] = [8000, 11025, 12000, 16000, 22050, 24000, 32000, 44100, 48000]
        if usual.contains(input) { return input }
        return input % 11025 == 0 ? 44100 : 48000
    }

    /// Starts `seconds` into the song (`timeOffset`): the decoder seeks there exactly, so
    /// nothing before it is decoded.
    public func seek(seconds: Double) throws(Failure) {
        guard seconds > 0 else { return }
        do {
            try decoder.seek(toFrame: Int64(seconds * Double(decoder.format.sampleRate)))
        } catch {
            throw Failure("cannot start at \(seconds) s: \(error)")
        }
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
            var failure: OutputError?
            buffer.withUnsafeBytes { raw in
                converter.convert(UnsafeRawBufferPointer(rebasing: raw[..<(count * decoder.format.frameBytes)])) { pcm in
                    do throws(OutputError) { encoded = try encoder.encode(pcm) } catch { failure = error }
                }
            }
            if let failure { throw Failure("encoding failed: \(failure.description)") }
            guard give(encoded) else { return false }
        }
        // The resampler's last few milliseconds, so the transcode is as long as the song.
        var tail: [UInt8] = []
        var failure: OutputError?
        converter.flush { pcm in
            do throws(OutputError) { tail = try encoder.encode(pcm) } catch { failure = error }
        }
        if let failure { throw Failure("encoding failed: \(failure.description)") }
        guard give(tail) else { return false }
        return give(encoder.finish())
    }

    /// Transcoding workers run below the box's own playback: a dozen phones being served
    /// must not take the CPU its outputs need.
    public static func lowerPriority() {
        ThreadPriority.background.applyToCurrentThread()
    }
}
