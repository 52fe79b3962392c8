import NimbusCue
import NimbusModel

/// A CUE sheet read as a playlist (`listplaylist "Album/album.cue"`, `load`): one entry per
/// audio track, the file it lies in with its part of it and the sheet's tags, as MPD's CUE
/// playlist plugin gives them.
struct CuePlaylist: PlaylistFormat {
    let name = "cue"
    let suffixes = ["cue"]
    let mimeTypes = ["application/x-cue"]

    func sniff(_ head: [UInt8]) -> Bool {
        let text = String(decoding: head, as: UTF8.self)
        return text.contains("FILE ") && text.contains("TRACK ")
    }

    func parse(_ bytes: [UInt8]) -> [PlaylistEntry]? {
        let tracks = CueSheet.tracks(bytes)
        guard !tracks.isEmpty else { return nil }
        return tracks.map { PlaylistEntry(uri: $0.file, tag: $0.tag, start: $0.start, end: $0.end) }
    }
}
