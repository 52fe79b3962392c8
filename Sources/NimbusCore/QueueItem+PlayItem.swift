import NimbusDecoder
import NimbusModel
import NimbusPlayer
import NimbusQueue

/// How a partition's songs are played now: where they open, with which ReplayGain, and
/// whether the decoder reads their MixRamp profiles (only with crossfade and a MixRamp delay).
struct PlaySettings {
    let songs: any SongOpening
    let replayGain: ReplayGainSettings
    let mixRamp: Bool
}

extension QueueItem {
    /// This entry resolved for the player, `startOffset` milliseconds into its range.
    func playItem(token: UInt64, startOffset: Int, settings: PlaySettings) -> PlayItem {
        let songs = settings.songs, song = self.song, replayGain = settings.replayGain, mixRamp = settings.mixRamp
        var item = PlayItem(
            token: token, queueID: id, uri: song.uri, startMilliseconds: (range?.start ?? 0) + startOffset, endMilliseconds: range?.end,
            sourceChanged: { songs.sourceChanged(song) }
        ) { try songs.openDecoder(for: song, replayGain: replayGain, mixRamp: mixRamp) }
        item.lengthMilliseconds = playedLength
        // A cloud song's head and tail are fetched as soon as it is named, so the join is gapless.
        item.prefetch = { songs.prefetch(song) }
        // MPD's httpd output: the artist and the title, else the name, else the file.
        let artist = song.tag.first(.artist), title = song.tag.first(.title)
        let joined = [artist, title].compactMap { $0 }.joined(separator: " - ")
        item.streamTitle = !joined.isEmpty ? joined : song.tag.first(.name) ?? String(song.uri.split(separator: "/").last ?? "")
        return item
    }
}
