import Foundation
import NimbusCore
import NimbusDecoder
import NimbusInput
import NimbusLibrary
import NimbusModel
import NimbusSupport
import NimbusTranscode

/// What the API needs of the daemon, each call on the thread the comment says.
public struct SubsonicBackend: Sendable {
    /// Where a URI is: the music directory, a mount (its music folder), a URL. Any thread.
    public var location: @Sendable (String) -> SongLocation
    /// The mounts (cloud accounts, shares, podcasts), by name. Any thread.
    public var mounts: @Sendable () -> [String]
    /// Opens a library song for reading (blocking; through the range cache for a cloud,
    /// share or podcast song). Called on a stream worker.
    public var open: @Sendable (String) throws -> any NimbusInput.InputStream
    /// A cover as JPEG scaled to `size` (nil: the original bytes, `size` 0), or nil for none.
    /// Blocking; called on a worker.
    public var cover: @Sendable (_ database: Database, _ songURI: String, _ size: Int) -> [UInt8]?
    /// The picture for an advertised `coverArt` id that has none (JPEG of `size`, 0: the
    /// default): clients are never answered an error where they wait for an image.
    public var placeholderCover: @Sendable (_ size: Int) -> [UInt8] = { _ in [] }
    /// Starts an `update` (hops to the core loop); scanning state and songs in the database.
    public var startScan: @Sendable () async -> Void
    public var scanning: @Sendable () async -> Bool
    /// The URI of the box's playing song, if any.
    public var playing: @Sendable () async -> String?
    /// Stars, ratings and plays (MPD's sticker table).
    public var stickers: SubsonicStickers = .none
    /// MPD's stored playlists (nil without a playlist directory). Blocking file work: workers only.
    public var playlists: PlaylistStore?
    /// Raises idle events on the MPD port (`stored_playlist` after a playlist edit).
    public var emit: @Sendable (IdleEvents) async -> Void = { _ in }
    /// Opens a decoder for a library song, through the storage as `open` reads it (blocking;
    /// a transcoding worker). Nil: no transcoding, every phone gets the original.
    public var decoder: (@Sendable (_ uri: String) throws -> any AudioDecoder)?
    /// Where finished transcodes are kept (the range cache); nil: each play is encoded again.
    public var transcodes: TranscodeStore?
    /// What phones that ask for no format get (`subsonic { }`), per user where a
    /// `subsonic_user { }` says otherwise.
    public var transcodeDefaults = TranscodeDefaults()
    public var userTranscodeDefaults: [String: TranscodeDefaults] = [:]
    /// A song's raw comments as `readcomments` lists them (blocking; lyrics are among them).
    public var comments: (@Sendable (_ uri: String) throws -> [(key: String, value: String)])?
    /// The stored playlist whose streams are the internet radio stations.
    public var radioPlaylist = "radio"
    /// The box's podcast subscriptions (nil: none on this box).
    public var podcasts: SubsonicPodcasts?
    /// The box's own loudness measurement of a song (URI, file modification time), sent as
    /// OpenSubsonic's `replayGain` so phones level playback with it. Any thread.
    public var replayGain: (@Sendable (_ uri: String, _ modified: Int64) -> SubsonicReplayGain?)?
    /// The partition `jukeboxControl` drives (nil: no jukebox). Core loop.
    public var jukebox: (@Sendable @CoreActor () -> Partition?)?

    public init(
        location: @escaping @Sendable (String) -> SongLocation,
        mounts: @escaping @Sendable () -> [String], open: @escaping @Sendable (String) throws -> any NimbusInput.InputStream,
        cover: @escaping @Sendable (Database, String, Int) -> [UInt8]?, startScan: @escaping @Sendable () async -> Void,
        scanning: @escaping @Sendable () async -> Bool, playing: @escaping @Sendable () async -> String?
    ) {
        self.location = location
        self.mounts = mounts
        self.open = open
        self.cover = cover
        self.startScan = startScan
        self.scanning = scanning
        self.playing = playing
    }
}

/// OpenSubsonic's `replayGain` of a song, in dB and linear peaks as ReplayGain tags hold them.
public struct SubsonicReplayGain: Sendable, Equatable {
    public var trackGain: Double
    public var trackPeak: Double
    public var albumGain: Double?
    public var albumPeak: Double?

    public init(trackGain: Double, trackPeak: Double, albumGain: Double? = nil, albumPeak: Double? = nil) {
        self.trackGain = trackGain
        self.trackPeak = trackPeak
        self.albumGain = albumGain
        self.albumPeak = albumPeak
    }
}
