import Foundation
import NimbusInput
import NimbusModel
import NimbusPCM

/// A song's ReplayGain tags (REPLAYGAIN_TRACK_GAIN "-6.02 dB", …_PEAK "0.98"), from Vorbis
/// comments or ID3 TXXX frames.
public struct ReplayGainInfo: Sendable, Equatable {
    public var trackGain: Float?
    public var trackPeak: Float?
    public var albumGain: Float?
    public var albumPeak: Float?

    public init(trackGain: Float? = nil, trackPeak: Float? = nil, albumGain: Float? = nil, albumPeak: Float? = nil) {
        self.trackGain = trackGain
        self.trackPeak = trackPeak
        self.albumGain = albumGain
        self.albumPeak = albumPeak
    }

    /// Takes `key`/`value` if it is a ReplayGain tag.
    mutating func note(_ key: String, _ value: String) {
        // A gain beyond what any file needs (or NaN, or infinite) is a broken tag: ignored.
        let number = Float(value.trimmingCharacters(in: .whitespaces).split(separator: " ").first ?? "")
            .flatMap { $0.isFinite && abs($0) <= 100 ? $0 : nil }
        switch key.lowercased() {
        case "replaygain_track_gain": trackGain = number
        case "replaygain_track_peak": trackPeak = number
        case "replaygain_album_gain": albumGain = number
        case "replaygain_album_peak": albumPeak = number
        default: break
        }
    }
}

/// The `replay_gain_mode` and the config's `replaygain_preamp`, `replaygain_missing_preamp`
/// and `replaygain_limit`, computed into one scale factor as MPD does.
public struct ReplayGainSettings: Sendable, Equatable {
    public var mode = "off"
    public var preamp: Float = 0
    public var missingPreamp: Float = 0
    public var limit = true
    /// For `auto`: album gain while playing in order, track gain when shuffled.
    public var random = false

    public init() {}

    public var isOff: Bool { mode == "off" }

    /// The factor for a song; 1 when off.
    public func scale(for info: ReplayGainInfo) -> Float {
        let album = mode == "album" || (mode == "auto" && !random)
        guard !isOff else { return 1 }
        // MPD falls back to the track values when the album ones are missing.
        let (gain, peak) = album && info.albumGain != nil ? (info.albumGain, info.albumPeak) : (info.trackGain, info.trackPeak)
        guard let gain else { return powf(10, missingPreamp / 20) }
        var scale = powf(10, (gain + preamp) / 20)
        if limit, let peak, peak > 0, scale * peak > 1 { scale = 1 / peak }
        return scale
    }
}

/// Plays another decoder's PCM scaled by a ReplayGain factor (with clipping for integers, and
/// dither where that cuts 16-bit samples), and
/// carries the song's loudness tags the player needs at run time (MixRamp).
public final class ReplayGainDecoder: AudioDecoder {
    private let inner: any AudioDecoder
    public let scale: Float
    public let mixRamp: MixRampTags?
    /// 16-bit songs scaled by a gain are cut back to 16 bits: TPDF dither, not plain rounding.
    private var dither = Dither()

    public init(_ inner: any AudioDecoder, scale: Float, mixRamp: MixRampTags? = nil) {
        self.inner = inner
        self.scale = scale
        self.mixRamp = mixRamp
    }

    public var format: AudioFormat { inner.format }
    public var totalFrames: Int64? { inner.totalFrames }
    public var bitRate: Int { inner.bitRate }
    public var streamTags: StreamTags? { inner.streamTags }
    public func seek(toFrame frame: Int64) throws(DecoderError) { try inner.seek(toFrame: frame) }

    public func decode(into buffer: UnsafeMutableRawBufferPointer) throws(DecoderError) -> Int {
        let frames = try inner.decode(into: buffer)
        guard scale != 1, frames > 0 else { return frames }
        let count = frames * Int(format.channels)
        switch format.sample {
        case .s16:
            let samples = buffer.bindMemory(to: Int16.self)
            for index in 0..<count {
                samples[index] = Int16(max(-32768, min(32767, (Float(samples[index]) * scale + dither.next()).rounded())))
            }
        case .s24, .s32:
            // s24 sits in 32-bit containers, as in MPD.
            let limit: Float = format.sample == .s24 ? 8_388_607 : 2_147_483_520
            let samples = buffer.bindMemory(to: Int32.self)
            for index in 0..<count { samples[index] = Int32(max(-limit, min(limit, (Float(samples[index]) * scale).rounded()))) }
        case .float:
            let samples = buffer.bindMemory(to: Float.self)
            for index in 0..<count { samples[index] *= scale }
        case .s8, .dsd:
            break
        }
        return frames
    }
}
