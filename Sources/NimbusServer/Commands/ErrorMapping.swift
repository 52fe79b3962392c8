import NimbusCore
import NimbusLibrary
import NimbusProtocol
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

    private static func channel(_ failure: ChannelHub.Failure) -> ProtocolError {
        switch failure {
        case .invalidName: return ProtocolError(.argument, "invalid channel name")
        case .alreadySubscribed: return ProtocolError(.exist, "already subscribed to this channel")
        case .subscriptionListFull: return ProtocolError(.exist, "subscription list is full")
        case .notSubscribed: return ProtocolError(.noExist, "not subscribed to this channel")
        case .nobodySubscribed: return ProtocolError(.noExist, "nobody is subscribed to this channel")
        }
    }
}
