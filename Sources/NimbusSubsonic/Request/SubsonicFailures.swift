import NimbusCore

/// The one map from the daemon's own failures to Subsonic error codes, so every endpoint
/// answers the same failure with the same code: what does not exist is 70, a name taken or
/// malformed 10, anything else 0 with a sentence saying what could not be done.
extension SubsonicError {
    /// `action`: what was being done, in the words of the message ("read the playlist").
    init(_ failure: any Error, while action: String) {
        switch failure {
        case let failure as SubsonicError:
            self = failure
        case let failure as PlaylistStore.Failure:
            switch failure {
            case .noSuchPlaylist: self = .notFound("Playlist")
            case .playlistExists, .renameTargetExists: self.init(10, "A playlist of that name exists")
            case .badName: self = .invalid("name")
            case .tooLarge: self.init(0, "The playlist is too long")
            default: self.init(0, "Cannot \(action)")
            }
        case let failure as PlaybackError:
            switch failure {
            case .noMixer: self.init(0, "The box's outputs have no volume control")
            case .queueFull(let limit): self.init(0, "The queue is full (\(limit) songs)")
            case .badSongIndex, .noSuchSong: self = .notFound("Song")
            default: self.init(0, "Cannot \(action) now (\(failure))")
            }
        default:
            self.init(0, "Cannot \(action): \(failure)")
        }
    }

    /// A part of the box this one does not have (no jukebox partition, no playlist directory).
    static func unavailable(_ what: String, because reason: String? = nil) -> SubsonicError {
        SubsonicError(0, "\(what) not available on this box" + (reason.map { " (\($0))" } ?? ""))
    }
}
