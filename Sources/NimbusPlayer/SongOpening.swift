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
}
