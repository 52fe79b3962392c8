import Foundation

/// One EBU R128 measurement of a song or an album: what libebur128 says, and the ReplayGain
/// 2.0 values that follow from it as loudgain and rsgain write them (reference −18 LUFS, the
/// true peak as the peak).
public struct Loudness: Sendable, Equatable, Codable {
    /// Integrated loudness in LUFS; nil for digital silence (nothing above the gate).
    public var integrated: Double?
    /// Loudness range in LU.
    public var range: Double
    /// The largest sample, linear (1.0 = full scale).
    public var samplePeak: Double
    /// The largest inter-sample peak (4× oversampled below 96 kHz), linear.
    public var truePeak: Double

    public init(integrated: Double?, range: Double, samplePeak: Double, truePeak: Double) {
        self.integrated = integrated
        self.range = range
        self.samplePeak = samplePeak
        self.truePeak = truePeak
    }

    /// ReplayGain 2.0's reference level, the one loudgain and rsgain use.
    public static let reference = -18.0

    /// The gain in dB that brings the song to −18 LUFS; silence gets none (loudgain's rule:
    /// no gain can level what is not there).
    public var gain: Double {
        guard let integrated else { return 0 }
        return Self.reference - integrated
    }

    /// What ReplayGain's peak tag holds: the true peak, as loudgain writes it.
    public var peak: Double { truePeak }
}

/// A song's measurements as stored: the file's modification time they belong to (a changed
/// file is measured again), the track, and its album's when the album was measured whole.
public struct SongLoudness: Sendable, Equatable, Codable {
    public var modified: Int64
    public var track: Loudness
    public var album: Loudness?

    public init(modified: Int64, track: Loudness, album: Loudness? = nil) {
        self.modified = modified
        self.track = track
        self.album = album
    }
}
