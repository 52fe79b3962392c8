/// What `readpicture` and `readcomments` need from a song, read again from the file.
public struct SongMetadata: Sendable {
    public var pictureType: String?
    public var picture: [UInt8]?
    public var comments: [(key: String, value: String)] = []
}

/// Why a song's bytes or metadata could not be read; the server maps each case to MPD's ACK.
public enum SongSourceError: Error, Equatable {
    /// No cover file in the song's folder (`albumart`'s "No file exists").
    case noCover
    case noSuchSong
    /// The file could not be read or decoded.
    case unreadable(String)
}
