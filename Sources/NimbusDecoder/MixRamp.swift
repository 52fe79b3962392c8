import Foundation

/// A song's MixRamp profile (MIXRAMP_START / MIXRAMP_END, written by the `mixramp` tool):
/// pairs of loudness and time, `"-90.00 0.00;-17.00 1.85;…"`, for the song's head and its
/// tail (times counted back from the end). The player reads them to place a crossfade where
/// the two songs are quiet enough to overlap.
public struct MixRampTags: Sendable, Equatable {
    public var start: String?
    public var end: String?
    /// The ReplayGain applied to the song, in dB: the profile was measured without it.
    public var gainDB: Float = 0

    public init(start: String? = nil, end: String? = nil, gainDB: Float = 0) {
        self.start = start
        self.end = end
        self.gainDB = gainDB
    }

    public var isEmpty: Bool { start == nil && end == nil }

    /// Takes `key`/`value` if it is a MixRamp tag (Vorbis comment, ID3 TXXX or APE item).
    mutating func note(_ key: String, _ value: String) {
        switch key.lowercased() {
        case "mixramp_start": start = value
        case "mixramp_end": end = value
        default: break
        }
    }

    /// MPD's mixramp_interpolate: the time at which the profile reaches `decibels`, linearly
    /// between the pairs around it (the loudness values rise along the list). Nil when the
    /// list is malformed before reaching it, or never gets that loud.
    public static func time(in profile: String, reaching decibels: Float) -> Double? {
        var previous: (db: Float, seconds: Double)?
        for pair in profile.split(separator: ";", omittingEmptySubsequences: true) {
            let fields = pair.split(separator: " ", omittingEmptySubsequences: true)
            guard fields.count == 2, let db = Float(fields[0]), let seconds = Double(fields[1]), db.isFinite, seconds.isFinite
            else { return nil }
            if db == decibels { return seconds }
            if db < decibels {
                previous = (db, seconds)
                continue
            }
            guard let previous else { return seconds }
            return previous.seconds + Double(decibels - previous.db) * (seconds - previous.seconds) / Double(db - previous.db)
        }
        return nil
    }
}
