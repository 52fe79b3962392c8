import Foundation

/// The file names a show's episodes get in the library: `2026-12-02 - Title.mp3`, sorting by
/// date, safe as path names (no `/`, no control characters, no leading dot, at most 120
/// characters before the suffix) and unique within the show (a second "Bonus" on one day
/// becomes `… - Bonus (2).mp3`).
public enum EpisodeNames {
    public static func names(for episodes: [PodcastEpisode]) -> [String] {
        var used: [String: Int] = [:]
        return episodes.map { episode in
            let base = stem(episode)
            let suffix = "." + fileSuffix(episode)
            let count = (used[base.lowercased()] ?? 0) + 1
            used[base.lowercased()] = count
            return count == 1 ? base + suffix : "\(base) (\(count))\(suffix)"
        }
    }

    static func stem(_ episode: PodcastEpisode) -> String {
        var date = "undated"
        if let published = episode.published {
            let formatter = DateFormatter()
            formatter.locale = Locale(identifier: "en_US_POSIX")
            formatter.timeZone = TimeZone(identifier: "UTC")
            formatter.dateFormat = "yyyy-MM-dd"
            date = formatter.string(from: published)
        }
        var title = episode.title.unicodeScalars.map { scalar -> String in
            if scalar.value < 0x20 || scalar == "/" || scalar == "\\" { return " " }
            return String(scalar)
        }.joined()
        title = title.split(separator: " ").joined(separator: " ")
        while title.hasPrefix(".") { title.removeFirst() }
        if title.count > 120 { title = String(title.prefix(120)).trimmingCharacters(in: .whitespaces) }
        return title.isEmpty ? date : "\(date) - \(title)"
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
