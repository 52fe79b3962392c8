import NimbusCue
import NimbusDecoder
import NimbusModel
import NimbusStorage

/// Playlist files inside the music folder (`Album/album.m3u`), as MPD's playlist plugins read
/// them through its storage: the format by suffix (then by content), entries relative to the
/// playlist's folder resolved against it (`../Other/x.flac` too), URLs kept, absolute paths
/// kept when they point into the music directory. Read through the storage, so a playlist on
/// a cloud drive or a share comes through the range cache like its songs.
extension SongSources {
    /// The entries of the playlist file at `path` (relative to the music folder) as songs
    /// named by library-relative URI or URL, with the tags the playlist gives them. Blocks
    /// on the storage: callers run it off the core loop.
    public func libraryPlaylist(_ path: String) throws(SongSourceError) -> [Song] {
        guard StoragePath.isSafe(path) else { throw .noSuchPlaylist }
        if registry.supports(path) { return try embeddedCueSheet(path) }
        let bytes = try SongSourceError.reading {
            let stream = try storage.open(path)
            return try stream.readToEnd(limit: Self.playlistLimit)
        }
        guard let entries = PlaylistFormats.standard.parse(bytes, mimeType: nil, uri: path) else { throw .noSuchPlaylist }
        let folder = StoragePath.parent(path)
        let root = storage.localPath("")
        return entries.compactMap { entry in
            guard let uri = Self.resolve(entry.uri, folder: folder, musicDirectory: root) else { return nil }
            return Song(uri: uri, tag: entry.tag, target: entry.start.map { SongTarget(uri: uri, start: $0, end: entry.end) })
        }
    }

    /// The tracks of the CUE sheet a song carries (a `CUESHEET` comment): each a part of the
    /// song itself, whatever file name the sheet gives, as MPD's embedded-CUE plugin reads it.
    private func embeddedCueSheet(_ path: String) throws(SongSourceError) -> [Song] {
        let scanned = try SongSourceError.reading {
            guard let plugin = registry.plugin(forPath: path) else { throw SongSourceError.noSuchPlaylist }
            return try plugin.scan(try storage.open(path), options: ScanOptions())
        }
        guard let sheet = scanned.cueSheet else { throw .noSuchPlaylist }
        let tracks = CueSheet.tracks(Array(sheet.utf8))
        guard !tracks.isEmpty else { throw .noSuchPlaylist }
        return tracks.map { Song(uri: path, tag: $0.tag, target: SongTarget(uri: path, start: $0.start, end: $0.end)) }
    }

    /// A playlist entry as a URI: a URL as it is; `/music/root/a/b.flac` as `a/b.flac` when
    /// it lies in the music directory (nil elsewhere); anything else relative to `folder`,
    /// with `.` and `..` applied (nil when it climbs above the music folder).
    static func resolve(_ entry: String, folder: String, musicDirectory: String?) -> String? {
        if Song.isURL(entry) { return entry }
        if entry.hasPrefix("/") {
            guard let root = musicDirectory, entry.hasPrefix(root + "/") else { return nil }
            return StoragePath.isSafe(String(entry.dropFirst(root.count + 1))) ? String(entry.dropFirst(root.count + 1)) : nil
        }
        var parts = folder.split(separator: "/").map(String.init)
        for part in entry.replacingBackslashes.split(separator: "/") {
            switch part {
            case ".", "": continue
            case "..":
                guard !parts.isEmpty else { return nil }
                parts.removeLast()
            default: parts.append(String(part))
            }
        }
        return parts.isEmpty ? nil : parts.joined(separator: "/")
    }
}

extension String {
    /// Playlists written on Windows separate folders with `\`.
    fileprivate var replacingBackslashes: String { String(map { $0 == "\\" ? "/" : $0 }) }
}
