import NimbusAnalysis
import NimbusLibrary
import NimbusModel
import NimbusSources

/// Which songs the analysis pass measures, grouped into albums as loudgain's `-a` groups them:
/// the songs of one folder sharing `album` and `albumartist` (else `artist`). A CUE track is
/// a part of its image, not a file: the image is what would be measured, and it is left out
/// for now.
public enum AnalysisJobs {
    /// `below`: a folder or song URI ("" for the whole library). `mounted`: include songs of
    /// cloud and share mounts (only when asked: measuring reads them whole). `everything`:
    /// measure again what is measured already.
    public static func albums(
        in database: Database, below path: String, sources: SongSources, store: AnalysisStore, mounted: Bool, everything: Bool
    ) -> [[AnalysisPass.Job]] {
        let songs = database.song(at: path).map { [$0] } ?? database.songs(below: path)
        var order: [String] = []
        var groups: [String: [AnalysisPass.Job]] = [:]
        var complete: [String: Bool] = [:]
        for song in songs where song.target == nil {
            if !mounted, sources.location(of: song.uri).isMounted { continue }
            let modified = song.lastModified ?? 0
            let folder = song.uri.split(separator: "/").dropLast().joined(separator: "/")
            let tag = song.tag
            let album = tag.first(.album).map { "\(folder)\u{1}\($0)\u{1}\(tag.first(.albumArtist) ?? tag.first(.artist) ?? "")" }
            let key = album ?? "\u{2}" + song.uri
            if groups[key] == nil { order.append(key) }
            groups[key, default: []].append(AnalysisPass.Job(uri: song.uri, modified: modified))
            if store.loudness(of: song.uri, modified: modified) == nil { complete[key] = false }
        }
        // An album is measured whole (its gain needs every song) as soon as one song needs it.
        return order.filter { everything || complete[$0] == false }.compactMap { groups[$0] }
    }
}
