/// Song positions and lengths in whole milliseconds, as MPD's SongTime keeps them (32 bits).
public enum SongTime {
    /// The largest time MPD can hold: about 24.8 days.
    public static let maximumMilliseconds = Int(Int32.max)

    /// Seconds from a client, a tag or a file as whole milliseconds, never trapping: larger
    /// values (and infinities) saturate, NaN is zero.
    public static func milliseconds(fromSeconds seconds: Double) -> Int {
        guard !seconds.isNaN else { return 0 }
        let scaled = (seconds * 1000).rounded()
        guard scaled < Double(maximumMilliseconds) else { return maximumMilliseconds }
        guard scaled > -Double(maximumMilliseconds) else { return -maximumMilliseconds }
        return Int(scaled)
    }
}
