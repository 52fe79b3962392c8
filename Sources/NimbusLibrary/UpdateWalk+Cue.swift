import NimbusCue
import NimbusModel
import NimbusStorage

/// A CUE sheet found by an update: its name and date, and its tracks as libcue read them.
struct PendingCue {
    let name: String
    let modified: Int64
    let tracks: [CueTrack]

    static func isSheet(_ name: String) -> Bool { name.lowercased().hasSuffix(".cue") && name.count > 4 }
}

/// CUE sheets as MPD's update makes them (`playlist_plugin { name "cue" as_directory "yes" }`,
/// its default): `album.cue` becomes a folder of the same name holding `track0001`, … —
/// songs with the sheet's tags, the format of the file they lie in, the length of their part
/// of it, and that file and part as their target — beside the sheet itself, a playlist.
extension UpdateWalk {
    func readCue(_ file: StorageEntry, in folder: String) -> PendingCue? {
        let path = StoragePath.join(folder, file.name)
        guard file.size <= Int64(CueSheet.maximumBytes) else {
            logger.info("Skipping CUE sheet \"\(path)\": larger than \(CueSheet.maximumBytes >> 20) MB")
            return nil
        }
        do {
            let bytes = try storage.open(path).readToEnd(limit: CueSheet.maximumBytes)
            let tracks = CueSheet.tracks(bytes)
            if tracks.isEmpty { logger.info("Skipping CUE sheet \"\(path)\": no audio track libcue could read") }
            return PendingCue(name: file.name, modified: file.modified, tracks: tracks)
        } catch {
            logger.warning("Skipping CUE sheet \"\(path)\": \(error.message)")
            return nil
        }
    }

    /// The virtual folder of `sheet`, its tracks pointing into `songs` (the sheet's folder's
    /// songs); nil when no track's file is there. Tracks of a file the folder lacks are left
    /// out with a log line, as MPD leaves them out.
    func cueDirectory(_ sheet: PendingCue, songs: [LibrarySong], path: String, old: LibraryDirectory?) -> LibraryDirectory? {
        var tracks: [LibrarySong] = []
        var missing = Set<String>()
        for track in sheet.tracks {
            guard let image = songs.first(where: { $0.hasName(track.file) }) else {
                if missing.insert(track.file).inserted {
                    logger.info("CUE sheet \"\(StoragePath.join(path, sheet.name))\": no song \"\(track.file)\" beside it; its tracks are left out")
                }
                continue
            }
            let length: Int? =
                if let end = track.end { end - track.start } else { image.tag.duration.map { max(0, $0 - track.start) } }
            let number = String(tracks.count + 1)
            let name = "track" + String(repeating: "0", count: max(0, 4 - number.count)) + number
            let added = old?.song(named: name)?.added ?? image.added
            tracks.append(
                LibrarySong.make(
                    name: name, modified: sheet.modified, added: added, format: image.format,
                    tag: Tag(items: track.tag.items, duration: length),
                    target: LibraryTarget(file: track.file, start: track.start, end: track.end)))
        }
        guard !tracks.isEmpty else { return nil }
        return LibraryDirectory(name: sheet.name, modified: sheet.modified, songs: tracks)
    }
}
