import NimbusDecoder
import NimbusModel

/// Where the player gets a decoder for a queued song. The assembly hands one implementation
/// (storage → input → decoder → ReplayGain) to every partition, so neither the core nor the
/// protocol layer opens files.
public protocol SongOpening: Sendable {
    /// Runs on the decoder thread and may block on the network. `mixRamp`: the decoder also
    /// carries the song's MixRamp profile.
    func openDecoder(for song: Song, replayGain: ReplayGainSettings, mixRamp: Bool) throws -> any AudioDecoder
    /// Asks for what the player will read first of a song soon to play; returns at once.
    func prefetch(_ song: Song)
    /// After a song failed: whether its file changed since it was opened (a cloud file
    /// replaced on the server), so opening it again plays the new version. Decoder thread.
    func sourceChanged(_ song: Song) -> Bool
    /// The tags and format of a song outside the library (a URL), read through the range cache
    /// (its head, and its tail where the format keeps tags there); nil when there are none to
    /// read (a live stream, an unknown format, a server that fails). Blocks: a worker thread.
    func remoteTags(of song: Song) -> ScanResult?
}

extension SongOpening {
    public func remoteTags(of song: Song) -> ScanResult? { nil }
}
