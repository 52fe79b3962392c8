import Foundation

/// The file names a show's episodes get in the library: `2026-12-02 - Title.mp3`, sorting by
/// date, safe as path names (no `/`, no control characters, no leading dot, at most 120
/// characters before the suffix) and unique within the show (a second "Bonus" on one day
/// becomes `… - Bonus (2).mp3`).
public enum EpisodeNames {
    /// Names for `episodes` whose stems (the name without its suffix) differ, ignoring case,
    /// from each other's and from those of the names in `taken`.
    public static func names(for episodes: [PodcastEpisode], avoiding taken: Set<String> = []) -> [String] {
        var used = Set(taken.map { ($0 as NSString).deletingPathExtension.lowercased() })
        return episodes.map { episode in
            let base = stem(episode)
            var candidate = base, count = 1
            while used.contains(candidate.lowercased()) {
                count += 1
                candidate = "\(base) (\(count))"
            }
            used.insert(candidate.lowercased())
            return candidate + "." + fileSuffix(episode)
        }
    }

    static func stem(_ episode: PodcastEpisode) -> String {
        let date = episode.published.map { day(Int64($0.timeIntervalSince1970)) } ?? "undated"
        let title = safe(episode.title, limit: 120)
        return title.isEmpty ? date : "\(date) - \(title)"
    }

    /// Text as a path name: control characters and slashes become spaces, runs of spaces one,
    /// no leading dot, at most `limit` characters.
    public static func safe(_ text: String, limit: Int) -> String {
        var name = text.unicodeScalars.map { $0.value < 0x20 || $0 == "/" || $0 == "\\" ? " " : String($0) }.joined()
        name = name.split(separator: " ").joined(separator: " ")
        while name.hasPrefix(".") { name.removeFirst() }
        if name.count > limit { name = String(name.prefix(limit)).trimmingCharacters(in: .whitespaces) }
        return name
    }

    /// `YYYY-MM-DD` (UTC) of a UNIX time: what names and the `Date` tag show.
    public static func day(_ seconds: Int64) -> String {
        var time = time_t(seconds), parts = tm()
        guard gmtime_r(&time, &parts) != nil else { return "undated" }
        return String(format: "%04d-%02d-%02d", Int(parts.tm_year) + 1900, Int(parts.tm_mon) + 1, Int(parts.tm_mday))
    }

    /// The audio's suffix, from the address or else the declared type (the decoder is chosen by it).
    static func fileSuffix(_ episode: PodcastEpisode) -> String {
        let fromPath = episode.url.pathExtension.lowercased()
        if ["mp3", "m4a", "mp4", "aac", "ogg", "oga", "opus", "flac", "wav"].contains(fromPath) { return fromPath }
        switch episode.type?.lowercased() {
        case "audio/mp4", "audio/x-m4a", "audio/m4a": return "m4a"
        case "audio/ogg", "audio/vorbis": return "ogg"
        case "audio/opus": return "opus"
        case "audio/flac", "audio/x-flac": return "flac"
        case "audio/aac", "audio/aacp": return "aac"
        default: return "mp3"
        }
    }
}
