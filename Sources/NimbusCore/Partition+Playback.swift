import NimbusModel
import NimbusPlayer
import NimbusQueue
import NimbusSupport

/// Transport control and the player's events.
extension Partition {
    /// `play [POS]`: a position starts that song; nil resumes a pause or starts the current one.
    public func play(position: Int?) throws(PlaybackError) {
        if let position {
            guard position < queue.count else { throw .badSongIndex }
            current = queue.orderIndex(ofPosition: position)
        } else if state == .pause {
            pause(false)
            return
        } else if state == .play {
            return
        } else if current == nil {
            guard !queue.isEmpty else { return }
            current = 0
        }
        startCurrent(at: 0, resuming: true)
        clearStartedPriority()
    }

    public func stop() {
        guard state != .stop else { return }
        keepHeardPosition()
        stopPlayer()
        changed(.player)
        sleep.playbackHalted()
    }

    /// `pause` toggles; `pause 1`/`pause 0` set. Stopped stays stopped, as in MPD.
    public func pause(_ value: Bool?) {
        switch (state, value ?? (state == .play)) {
        case (.play, true):
            engine.pause()
            pendingElapsed = elapsedMilliseconds
            state = .pause
            keepHeardPosition()
            changed(.player)
            sleep.playbackHalted()
        case (.pause, false) where outputs.activeSlots.isEmpty:
            // Paused because every output failed: they get another chance, as when playback
            // starts, and the song starts again where it was (MPD reopens its outputs).
            outputs.hand(fromStop: true)
            startCurrent(at: pendingElapsed, keepingError: true)
        case (.pause, false):
            state = .play
            changed(.player)
            holdPlayerWakes()
            engine.resume()
        default:
            break
        }
    }

    public func next() throws(PlaybackError) {
        guard let current, state != .stop else { throw .notPlaying }
        if options.spendSingleOneshot() { onEvents(.options) }
        let old = current
        if let next = queue.nextOrder(after: current, options: optionsIgnoringSingle) {
            self.current = next
            startCurrent(at: 0, fadingOut: true, resuming: true)
            consumeOrder(old)
            clearStartedPriority()
        } else {
            keepHeardPosition()
            stopPlayer()
            consumeOrder(old)
            self.current = nil
            changed(.player)
        }
    }

    public func previous() throws(PlaybackError) {
        guard let current, state != .stop else { throw .notPlaying }
        self.current = queue.previousOrder(before: current, options: options)
        startCurrent(at: 0, fadingOut: true, resuming: true)
        clearStartedPriority()
    }

    /// `seek`/`seekid`: jumps inside a song, starting it if it is not the current one. The
    /// decoder restarts at the target rather than seeking in place: it may already be decoding
    /// the following song.
    /// A target past the song's end is clamped to it, as MPD's SeekDecoder does: the song then
    /// ends at once and the next one plays, and `elapsed` never shows a time the song lacks.
    public func seek(position: Int, milliseconds: Int) throws(PlaybackError) {
        guard position < queue.count else { throw .badSongIndex }
        var target = milliseconds
        if let length = queue[position].playedLength { target = min(target, length) }
        current = queue.orderIndex(ofPosition: position)
        startCurrent(at: target, paused: state == .pause)
    }

    /// `seekcur`: absolute, or relative with `relative` (`+5`, `-5`).
    public func seekCurrent(milliseconds: Int, relative: Bool) throws(PlaybackError) {
        guard state != .stop, let position = currentPosition else { throw .notPlaying }
        let base = relative ? elapsedMilliseconds : 0
        try seek(position: position, milliseconds: max(0, base + milliseconds))
    }

    public func clearError() {
        guard error != nil else { return }
        error = nil
        changed(.player)
    }

    // MARK: options

    /// MPD's SetRandom: switching on keeps the playing song first in the new order; while
    /// stopped the current song is forgotten. Switching off restores the natural order.
    public func setRandom(_ on: Bool) {
        guard queue.random != on else { return }
        if on {
            let playing = state != .stop ? currentPosition : nil
            queue.setRandom(true, current: playing)
            current = playing.map { _ in 0 }
        } else {
            preservingCurrent { queue.setRandom(false, current: nil) }
        }
        refreshNext()
        changed(.options)
    }

    public func setOptions(_ change: (inout PlaybackOptions) -> Void) {
        var updated = options
        change(&updated)
        guard updated != options else { return }
        let fading = updated.crossfade != options.crossfade || updated.mixRampDB != options.mixRampDB
            || updated.mixRampDelay != options.mixRampDelay
        options = updated
        if fading { engine.setCrossfade(crossfadeSettings) }
        refreshNext()
        changed(.options)
    }

    // MARK: internals

    /// Options for an explicit `next`: single mode does not stop a skip.
    var optionsIgnoringSingle: PlaybackOptions {
        var copy = options
        if !copy.repeatMode { copy.single = .off }
        return copy
    }

    var crossfadeSettings: CrossfadeSettings {
        CrossfadeSettings(
            seconds: Double(options.crossfade), mixRampDB: options.mixRampDB, mixRampDelay: options.mixRampDelay.map(Double.init))
    }

    /// Starts the current song `milliseconds` in (from its range start) with its follower
    /// named; `paused` holds it before its first sample. `fadingOut`: a skip while playing
    /// with crossfade on fades the song left behind out under the new one (MPD cuts).
    /// `resuming`: a long song starts where it was left (`play`, `next`, the queue reaching it;
    /// never `seek`, which goes where it is told).
    func startCurrent(at milliseconds: Int, paused: Bool = false, keepingError: Bool = false, fadingOut: Bool = false, resuming: Bool = false) {
        guard let position = currentPosition else { return }
        holdPlayerWakes()
        keepHeardPosition(leaving: true)
        let milliseconds = resuming && milliseconds == 0 ? resumeOffset(forPosition: position) : milliseconds
        var leaving: PlayItem?
        if fadingOut, options.crossfade > 0, state == .play, let playing = handshake.playing, let id = handshake.queueID(of: playing),
            let leavingPosition = queue.position(ofID: id)
        {
            leaving = queue[leavingPosition].playItem(token: handshake.newToken(), startOffset: elapsedMilliseconds, settings: playSettings)
        }
        if !keepingError { error = nil }
        // Events still in flight for songs started before this one must not move `current`.
        handshake.reset()
        let item = queue[position].playItem(token: handshake.newToken(), startOffset: milliseconds, settings: playSettings)
        pendingElapsed = milliseconds
        let next = followerItem(ofOrder: current)
        handshake.start(item, follower: next)
        next?.prefetch()
        outputs.hand(fromStop: state == .stop)
        engine.setCrossfade(crossfadeSettings)
        engine.play(item, next: next, paused: paused, fadingOut: leaving)
        state = paused ? .pause : .play
        changed(.player)
    }

    /// The player's threads wake once the idle clients have their answers (`HeldWakes`):
    /// on a box whose daemon is confined to one core a woken thread runs before the loop that
    /// woke it, and every idle client would hear of `play` after the decoder's first burst.
    private func holdPlayerWakes() {
        guard engine.holdWakes() else { return }
        home.idle.afterAnswers { [engine] in engine.releaseWakes() }
    }

    func stopPlayer() {
        engine.stop()
        state = .stop
        handshake.reset()
        pendingElapsed = 0
    }

    /// After a queue or option change: if the song named to follow the current one is no
    /// longer the right one, name the right one — and if the decoder already took up the old
    /// one, have it drop that (it keeps playing it if some of it was already heard).
    func refreshNext() {
        guard state != .stop else { return }
        perform(handshake.queueEdited())
    }

    /// The song after the one at order index `order` as the player should get it: nil at the
    /// end of the queue, in single mode (MPD stops or pauses at the border), or after as many
    /// failures in a row as the queue has songs. The already named item is reused while it
    /// still fits, so its decoding is not restarted.
    func followerItem(ofOrder order: Int?) -> PlayItem? {
        guard let order, order < queue.order.count, let next = queue.nextOrder(after: order, options: options) else { return nil }
        if options.single != .off && !options.repeatMode { return nil }
        if sleep.stopsAfterCurrent { return nil }
        if failureStreak >= queue.count { return nil }
        let entry = queue[queue.order[next]]
        let start = (entry.range?.start ?? 0) + resumeOffset(forPosition: queue.order[next])
        if let named = handshake.reusableFollower, named.queueID == entry.id, named.startMilliseconds == start,
            named.endMilliseconds == entry.range?.end
        {
            return named
        }
        return entry.playItem(token: handshake.newToken(), startOffset: resumeOffset(forPosition: queue.order[next]), settings: playSettings)
    }

    /// How songs handed to the player now are opened.
    var playSettings: PlaySettings {
        var replayGain = home.replayGain
        replayGain.mode = options.replayGainMode
        replayGain.random = queue.random
        return PlaySettings(songs: home.songs, replayGain: replayGain, mixRamp: options.crossfade > 0 && options.mixRampDelay != nil)
    }

    /// Elapsed time in the current song, relative to its range start.
    public var elapsedMilliseconds: Int {
        guard state != .stop else { return 0 }
        let status = engine.status
        guard let playing = handshake.playing, status.token == playing, state == .play else { return pendingElapsed }
        // A ranged song (a CUE track) is never heard before its start: the output reporting
        // less has not heard the restarted song yet (right after a seek), so the position
        // asked for stands until it has.
        let heard = status.elapsedMilliseconds - (currentItem?.range?.start ?? 0)
        return heard < 0 ? pendingElapsed : heard
    }

    func consumeOrder(_ order: Int) {
        guard options.consume != .off, order < queue.order.count else { return }
        let position = queue.order[order]
        let currentID = currentItem?.id
        queue.remove(at: position)
        current = currentID.flatMap { queue.position(ofID: $0) }.flatMap { queue.orderIndex(ofPosition: $0) }
        queue.commitChange()
        onEvents(.playlist)
        // MPD 0.24's oneshot: one song consumed, then consume is off again.
        if options.spendConsumeOneshot() { onEvents(.options) }
    }
}
