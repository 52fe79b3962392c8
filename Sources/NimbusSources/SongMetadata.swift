import NimbusDecoder
import NimbusInput

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
    /// A URL that is no playlist Nimbus can read.
    case noSuchPlaylist
    /// The file could not be read or decoded.
    case unreadable(String)

    /// Runs `body`, turning the input and decoder libraries' errors into `.unreadable` with
    /// their message.
    static func reading<T>(_ body: () throws -> T) throws(SongSourceError) -> T {
        do {
            return try body()
        } catch let error as SongSourceError {
            throw error
        } catch let error as DecoderError {
            throw .unreadable(error.message)
        } catch let error as InputError {
            throw .unreadable(error.message)
        } catch {
            throw .unreadable(String(describing: error))
        }
    }
}
