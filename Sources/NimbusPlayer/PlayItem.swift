import NimbusDecoder
import NimbusModel

/// A queue entry resolved for playing: how to open it, and which part to play.
public struct PlayItem: Sendable {
    /// Unique for each time a queue entry is started or queued, so events can be matched.
    public let token: UInt64
    public let queueID: Int
    public let uri: String
    /// Milliseconds into the song to start at (a seek or a `rangeid` start).
    public var startMilliseconds: Int
    /// Stop here instead of at the end (`rangeid`).
    public let endMilliseconds: Int?
    /// Opens a decoder; runs on the decoder thread and may block on the network.
    public let open: @Sendable () throws -> any AudioDecoder
    /// After a failure: whether the song's file changed since it was opened (then it is
    /// opened once more, from its start). Decoder thread; may block.
    public let sourceChanged: @Sendable () -> Bool
    /// What a stream output announces for the song (`Artist - Title`, ICY StreamTitle).
    public var streamTitle: String?
    /// Milliseconds the played part lasts, when known (a crossfade needs songs of known length).
    public var lengthMilliseconds: Int?
    /// Asks for what the player will read first of the song (a cloud song's head and tail);
    /// returns at once. Called when the song is named to follow another.
    public var prefetch: @Sendable () -> Void = {}

    public init(
        token: UInt64, queueID: Int, uri: String, startMilliseconds: Int = 0, endMilliseconds: Int? = nil,
        sourceChanged: @escaping @Sendable () -> Bool = { false }, open: @escaping @Sendable () throws -> any AudioDecoder
    ) {
        self.sourceChanged = sourceChanged
        self.token = token
        self.queueID = queueID
        self.uri = uri
        self.startMilliseconds = startMilliseconds
        self.endMilliseconds = endMilliseconds
        self.open = open
    }
}

/// What the player reports to the core (delivered on the player's threads; the core hops).
public enum PlayerEvent: Sendable, Equatable {
    /// The decoder took up a song; the core answers with `setNext(_:after:)`.
    case decoding(token: UInt64)
    /// The clock output reached the first audio of a song.
    case started(token: UInt64)
    /// Everything queued has been heard.
    case finished
    /// A song could not be opened or broke while decoding; the player moved on.
    case failed(token: UInt64, message: String)
    /// An output could not be opened or failed while playing.
    case outputFailed(name: String, message: String)
    /// A radio stream named itself or its next title.
    case tags(token: UInt64, name: String?, title: String?)
    /// An output found the pipe empty `times` times while a song played (the decoder fell
    /// behind: an audible gap each), reported when that song ended or playback stopped.
    case ranDry(output: String, times: Int)
}

/// A consistent view of the player for `status`.
public struct PlayerStatus: Sendable, Equatable {
    public var state: PlayerState = .stop
    public var token: UInt64 = 0
    public var elapsedMilliseconds = 0
    public var format: AudioFormat?
    public var bitRate = 0
}
