/// The song stickers Nimbus itself reads and writes, and the scale of each value — one
/// vocabulary for the MPD commands, resume positions, podcasts, Subsonic bookmarks and
/// annotations, so a value written by one is read the same way by the others and by the
/// MPD clients that share the names (myMPD's `elapsed`, `like`, `playCount`, `lastPlayed`,
/// `rating` on a 0–10 scale).
public enum SongStickers {
    /// Where a song was left, in whole seconds (myMPD's resume reads the same value).
    public static let resume = "elapsed"
    /// When a long song or an episode was heard to its end (Unix seconds).
    public static let played = "played"
    /// 0–10, as MPD clients keep it; phones see 1–5 stars.
    public static let rating = "rating"
    /// "2" is liked (starred on a phone), "0" disliked, as myMPD writes it.
    public static let like = "like"
    /// Times heard to the end or scrobbled, counted with `sticker inc`.
    public static let playCount = "playCount"
    /// Unix seconds of the last play.
    public static let lastPlayed = "lastPlayed"

    /// A resume position as stored: whole seconds, rounded down.
    public static func resumeValue(milliseconds: Int) -> String { String(max(0, milliseconds) / 1000) }

    /// A stored resume position in milliseconds. Any client may write the sticker: what is
    /// not a sane number of seconds (NaN, inf, 1e300, negative) is no position, not a trap.
    public static func resumeMilliseconds(_ value: String?) -> Int? {
        guard let value, let seconds = Double(value), seconds.isFinite, seconds > 0, seconds < 1e9 else { return nil }
        return Int(seconds * 1000)
    }

    /// Stars 1–5 as the stored 0–10 value (0 stars removes the sticker instead).
    public static func ratingValue(stars: Int) -> String { String(min(5, max(0, stars)) * 2) }

    /// The stored 0–10 value as 1–5 stars (an odd value rounds up), nil when unrated.
    public static func stars(_ value: String?) -> Int? {
        guard let value = value.flatMap({ Int($0) }), value > 0 else { return nil }
        return min(5, max(1, (value + 1) / 2))
    }

    /// `like` as a phone's star.
    public static func isLiked(_ value: String?) -> Bool { value == "2" }
    public static let likedValue = "2"

    /// A stored count, never negative.
    public static func count(_ value: String?) -> Int { value.flatMap { Int($0) }.map { max(0, $0) } ?? 0 }
}
