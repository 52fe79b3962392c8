import NimbusCore
import NimbusLibrary
import NimbusProtocol
import NimbusSources
import NimbusSupport

/// The one place where domain errors become ACK codes and messages.
enum ErrorMapping {
    static func protocolError(for error: any Error) -> ProtocolError {
        switch error {
        case let error as ProtocolError:
            return error
        case let error as ChannelHub.Failure:
            return channel(error)
        case let error as LibraryError:
            return library(error)
        case let error as PlaybackError:
            return playback(error)
        case let error as PlaylistStore.Failure:
            return storedPlaylist(error)
        case let error as MountFailure:
            switch error {
            case .badMountPoint: return ProtocolError(.argument, "Bad mount point")
            case .busy: return ProtocolError(.argument, "Mount point busy")
            case .alreadyMounted: return ProtocolError(.argument, "This storage is already mounted")
            case .unrecognized: return ProtocolError(.argument, "Unrecognized storage URI")
            case .unsupported(let scheme):
                return ProtocolError(
                    .argument,
                    "No \(scheme):// storage in Nimbus: mount SMB (smb://), NFS (nfs://), SFTP (sftp://), FTP (ftp://, ftps://), WebDAV (http://, https://) or a cloud account (cloud:NAME)")
            case .notMountPoint: return ProtocolError(.argument, "Not a mount point")
            case .failed(let message): return ProtocolError(.system, message)
            case .refused(let message): return ProtocolError(.password, message)
            case .missing(let message): return ProtocolError(.noExist, message)
            }
        case let error as AccountFailure:
            return account(error)
        case let error as MultipleOutputs.Failure:
            switch error {
            case .noSuchOutput: return ProtocolError(.noExist, "No such audio output")
            case .unsupportedAttribute: return ProtocolError(.argument, "Unsupported attribute")
            }
        case let error as SongSourceError:
            switch error {
            case .noCover: return ProtocolError(.noExist, "No file exists")
            case .noSuchSong: return ProtocolError(.noExist, "No such song")
            case .noSuchPlaylist: return ProtocolError(.noExist, "No such playlist")
            case .unreadable(let message): return ProtocolError(.system, message)
            }
        case is MusicLibrary.UpdateQueueFull:
            return ProtocolError(.updateAlready, "Update queue is full")
        case let error as SystemError:
            return ProtocolError(.system, error.description)
        default:
            return ProtocolError(.unknown, String(describing: error))
        }
    }

    private static func library(_ error: LibraryError) -> ProtocolError {
        switch error {
        case .noSuchDirectory: return ProtocolError(.noExist, "No such directory")
        case .noSuchSong: return ProtocolError(.noExist, "No such song")
        case .invalidRegex(let pattern): return ProtocolError(.argument, "Error in regex: \(pattern)")
        }
    }

    private static func playback(_ error: PlaybackError) -> ProtocolError {
        switch error {
        case .badSongIndex: return ProtocolError(.argument, "Bad song index")
        case .noSuchSong: return ProtocolError(.noExist, "No such song")
        case .noCurrentSong: return ProtocolError(.playerSync, "No current song")
        case .moveRelativeToItself: return ProtocolError(.argument, "Cannot move current song relative to itself")
        case .queueFull: return ProtocolError(.playlistMax, "Playlist is too large")
        case .notPlaying: return ProtocolError(.playerSync, "Not playing")
        case .noMixer: return ProtocolError(.unknown, "No mixer")
        case .mixerFailed(let message): return ProtocolError(.unknown, message)
        }
    }

    private static func storedPlaylist(_ error: PlaylistStore.Failure) -> ProtocolError {
        switch error {
        case .noSuchPlaylist: return ProtocolError(.noExist, "No such playlist")
        case .playlistExists: return ProtocolError(.exist, "Playlist already exists")
        case .renameTargetExists: return ProtocolError(.exist, "Playlist exists already")
        case .badName: return ProtocolError(.argument, "Bad playlist name")
        case .badSongIndex: return ProtocolError(.argument, "Bad song index")
        case .badPosition: return ProtocolError(.argument, "Bad position")
        case .badRange: return ProtocolError(.argument, "Bad range")
        case .tooLarge: return ProtocolError(.playlistMax, "Stored playlist is too large")
        case .io(let message): return ProtocolError(.system, message)
        }
    }

    private static func channel(_ failure: ChannelHub.Failure) -> ProtocolError {
        switch failure {
        case .invalidName: return ProtocolError(.argument, "invalid channel name")
        case .alreadySubscribed: return ProtocolError(.exist, "already subscribed to this channel")
        case .subscriptionListFull: return ProtocolError(.exist, "subscription list is full")
        case .notSubscribed: return ProtocolError(.noExist, "not subscribed to this channel")
        case .nobodySubscribed: return ProtocolError(.noExist, "nobody is subscribed to this channel")
        }
    }

    static func account(_ error: AccountFailure) -> ProtocolError {
        switch error {
        case .noSuchAccount(let name): return ProtocolError(.noExist, "No such account: \(name)")
        case .nameTaken(let name): return ProtocolError(.exist, "An account or folder named \"\(name)\" exists already")
        case .badName(let why): return ProtocolError(.argument, "Bad account name: \(why)")
        case .invalid(let why): return ProtocolError(.argument, why)
        case .configured(let name):
            return ProtocolError(.argument, "\"\(name)\" comes from the config file; remove its cloud block there")
        case .cannotSave(let why): return ProtocolError(.system, why)
        }
    }
}
