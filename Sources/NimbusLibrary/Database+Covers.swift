import NimbusModel

extension Database {
    /// The first song of an album, whose cover stands for the album: the web page's grid has
    /// an album's name and artist (`list album group albumartist`), not a song, and asking the
    /// database once per tile would be a thousand queries. The index is built once per
    /// snapshot. `artist` is matched against AlbumArtist (falling back to Artist, as the
    /// grouping does); an empty one, or one no song of the album has, finds the album's first
    /// song by any artist.
    public func coverSong(album: String, artist: String) -> String? {
        let index: [String: String] = (try? remembered("cover songs") { () throws(LibraryError) -> [String: String] in
            var index: [String: String] = [:]
            visit("", recursive: true) { directory, song in
                guard let album = song.tag.first(.album) else { return }
                let uri = StoragePath.join(directory, song.name)
                if index[album + "\u{0}"] == nil { index[album + "\u{0}"] = uri }
                for name in song.tag.valuesWithFallback(.albumArtist) where index[album + "\u{0}" + name] == nil {
                    index[album + "\u{0}" + name] = uri
                }
            }
            return index
        }) ?? [:]
        return index[album + "\u{0}" + artist] ?? index[album + "\u{0}"]
    }
}
