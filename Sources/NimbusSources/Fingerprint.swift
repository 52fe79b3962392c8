import CChromaprint
import NimbusDecoder
import NimbusInput
import NimbusModel
import NimbusPCM

/// `getfingerprint`, as MPD's chromaprint decoder client does it: the song is decoded as for
/// playing, without ReplayGain, and its first two minutes go to libchromaprint's default
/// algorithm as 16-bit samples. Other sample formats are converted the way MPD's PcmConvert
/// does (float truncated, 24 and 32 bits dithered with MPD's generator from a zero state), so
/// the same decoded audio gives MPD's fingerprint. MPD stops after the decoder chunk that
/// crosses two minutes; Nimbus stops at two minutes exactly.
extension SongSources {
    /// Failures to open or decode the song are `.unreadable` with the library's message.
    public func fingerprint(of song: Song) throws(SongSourceError) -> String {
        try SongSourceError.reading { try computeFingerprint(song) }
    }

    private func computeFingerprint(_ song: Song) throws -> String {
        let (stream, name) = try openStream(song.playedURI)
        let decoder = try registry.openDecoder(for: name, stream: stream)
        let format = decoder.format
        guard let context = chromaprint_new(Int32(CHROMAPRINT_ALGORITHM_DEFAULT.rawValue)) else {
            throw SongSourceError.unreadable("chromaprint_new() failed")
        }
        defer { chromaprint_free(context) }
        guard chromaprint_start(context, Int32(format.sampleRate), Int32(format.channels)) == 1 else {
            throw SongSourceError.unreadable("chromaprint_start() failed")
        }
        var remaining = 120 * Int(format.sampleRate)
        var buffer = [UInt8](repeating: 0, count: 4096 * format.frameBytes)
        var samples = [Int16](repeating: 0, count: 4096 * Int(format.channels))
        var dither = ErrorFeedbackDither()
        while remaining > 0 {
            let frames = try buffer.withUnsafeMutableBytes { try decoder.decode(into: $0) }
            if frames == 0 { break }
            let used = min(frames, remaining)
            remaining -= used
            let count = used * Int(format.channels)
            buffer.withUnsafeBytes { raw in
                Self.convert(raw, format.sample, count: count, into: &samples, dither: &dither)
            }
            let fed = samples.withUnsafeBufferPointer { chromaprint_feed(context, $0.baseAddress, Int32(count)) }
            guard fed == 1 else { throw SongSourceError.unreadable("chromaprint_feed() failed") }
        }
        guard chromaprint_finish(context) == 1 else { throw SongSourceError.unreadable("chromaprint_finish() failed") }
        var fingerprint: UnsafeMutablePointer<CChar>?
        guard chromaprint_get_fingerprint(context, &fingerprint) == 1, let fingerprint else {
            throw SongSourceError.unreadable("chromaprint_get_fingerprint() failed")
        }
        defer { chromaprint_dealloc(fingerprint) }
        return String(cString: fingerprint)
    }

    private static func convert(
        _ raw: UnsafeRawBufferPointer, _ sample: SampleFormat, count: Int, into samples: inout [Int16], dither: inout ErrorFeedbackDither
    ) {
        for index in 0..<count {
            switch sample {
            case .s16:
                samples[index] = raw.loadUnaligned(fromByteOffset: index * 2, as: Int16.self)
            case .s8:
                samples[index] = Int16(raw.loadUnaligned(fromByteOffset: index, as: Int8.self)) << 8
            case .s24:
                samples[index] = dither.reduce(Int64(raw.loadUnaligned(fromByteOffset: index * 4, as: Int32.self)), bits: 24)
            case .s32:
                samples[index] = dither.reduce(Int64(raw.loadUnaligned(fromByteOffset: index * 4, as: Int32.self)), bits: 32)
            case .float:
                let scaled = (Double(raw.loadUnaligned(fromByteOffset: index * 4, as: Float.self)) * 32768).rounded(.towardZero)
                samples[index] = Int16(max(-32768, min(32767, scaled.isNaN ? 0 : scaled)))
            case .dsd:
                samples[index] = 0
            }
        }
    }
}
