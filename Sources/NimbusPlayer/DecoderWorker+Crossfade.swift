import NimbusDecoder
import NimbusModel

/// When songs overlap, with MPD's rules: the follower is opened once the end of the current
/// song is within the lookahead, if both songs are long enough to fade and the core named
/// the follower already; the overlap's length comes from the crossfade setting or the two
/// MixRamp profiles. The mixing itself is CrossfadeMixer's.
extension DecoderWorker {
    /// Opens the follower once the end is near enough, and starts the overlap when it is due.
    func openFollowerIfDue() {
        guard let current = song, let end = current.end else { return }
        if mixer.follower != nil {
            mixer.beginOverlapIfDue(current)
            return
        }
        guard crossfade.isEnabled, noOverlapAfter != current.item.token else { return }
        let rate = Double(current.format.sampleRate)
        let remaining = Double(end - current.frame) / rate
        guard remaining <= crossfade.lookaheadSeconds + 0.5 else { return }
        // Not named yet: the core answers when the song starts to be heard; look again later.
        guard let named = follower(after: current.item.token, taking: false) else { return }
        let length = current.item.lengthSeconds ?? Double(end) / rate
        guard let next = named, crossfade.canFade(songSeconds: length), crossfade.canFade(songSeconds: next.lengthSeconds) else {
            noOverlapAfter = current.item.token
            return
        }
        let opened: OpenSong
        do {
            opened = try OpenSong.open(next)
        } catch {
            // Opened again at the join, where a failure is reported as usual.
            if !interrupt.isPending { noOverlapAfter = current.item.token }
            return
        }
        guard let overlap = crossfade.overlap(outgoing: current.decoder.mixRamp, incoming: opened.decoder.mixRamp) else {
            noOverlapAfter = current.item.token
            return
        }
        _ = follower(after: current.item.token, taking: true)
        chain.append(next.token)
        events(.decoding(token: next.token))
        mixer.admit(opened, overlapFrames: Int64(min(overlap.seconds, remaining) * rate), additive: overlap.additive)
    }

    /// A skip (`next`, `previous`) while playing: the song left behind, reopened where it was
    /// heard, fades out under the new one. Songs too short to fade simply cut, as in MPD; a
    /// stream of unknown length (a radio) is not reopened to fade it.
    func startSkipFade(from leaving: PlayItem) {
        guard crossfade.isEnabled, let current = song, crossfade.canFade(songSeconds: current.item.lengthSeconds),
            crossfade.canFade(songSeconds: leaving.lengthSeconds), let opened = try? OpenSong.open(leaving)
        else { return }
        let rate = Double(opened.format.sampleRate)
        let left = opened.end.map { Double($0 - opened.frame) / rate } ?? crossfade.seconds
        let seconds = min(crossfade.seconds, left, CrossfadeSettings.longestOverlap)
        guard seconds > 0.05 else { return }
        mixer.fadeOut(opened, seconds: seconds)
    }
}
