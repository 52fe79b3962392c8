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
            resume()
            return
        } else if state == .play {
            return
        } else if current == nil {
            guard !queue.isEmpty else { return }
            current = 0
        }
        startCurrent(at: 0)
        clearStartedPriority()
    }

    public func play(id: Int?) throws(PlaybackError) {
        guard let id else { return try play(position: nil) }
        guard let position = queue.position(ofID: id) else { throw .noSuchSong }
        try play(position: position)
    }

    public func stop() {
        guard state != .stop else { return }
        stopPlayer()
        changed(.player)
    }

    /// `pause` toggles; `pause 1`/`pause 0` set. Stopped stays stopped, as in MPD.
    public func pause(_ value: Bool?) {
        switch (state, value ?? (state == .play)) {
        case (.play, true):
            engine.pause()
            pendingElapsed = elapsedMilliseconds
            setState(.pause)
            changed(.player)
        case (.pause, false):
            resume()
        default:
            break
        }
    }

    private func resume() {
        engine.resume()
        setState(.play)
        changed(.player)
    }

    public func next() throws(PlaybackError) {
        guard let current, state != .stop else { throw .notPlaying }
        finishSingleOneshot()
        let old = current
        if let next = queue.nextOrder(after: current, options: optionsIgnoringSingle) {
            self.current = next
            startCurrent(at: 0, fadingOut: true)
            consumeOrder(old)
            clearStartedPriority()
        } else {
            stopPlayer()
            consumeOrder(old)
            self.current = nil
            changed(.player)
        }
    }

    public func previous() throws(PlaybackError) {
        guard let current, state != .stop else { throw .notPlaying }
        self.current = queue.previousOrder(before: current, options: options)
        startCurrent(at: 0, fadingOut: true)
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

    public func seek(id: Int, milliseconds: Int) throws(PlaybackError) {
        guard let position = queue.position(ofID: id) else { throw .noSuchSong }
        try seek(position: position, milliseconds: milliseconds)
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
    private var optionsIgnoringSingle: PlaybackOptions {
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
    func startCurrent(at milliseconds: Int, paused: Bool = false, keepingError: Bool = false, fadingOut: Bool = false) {
        guard let position = currentPosition else { return }
        var leaving: PlayItem?
        if fadingOut, options.crossfade > 0, state == .play, let playingToken, let id = tokens[playingToken],
            let leavingPosition = queue.position(ofID: id)
        {
            leaving = makeItem(queue[leavingPosition], startOffset: elapsedMilliseconds)
        }
        if !keepingError { error = nil }
        if state == .stop { failedOutputs.removeAll() }
        // Events still in flight for songs started before this one must not move `current`.
        tokens.removeAll()
        taken.removeAll()
        let item = makeItem(queue[position], startOffset: milliseconds)
        startToken = item.token
        playingToken = nil
        pendingElapsed = milliseconds
        queuedItem = nil
        let next = followerItem(ofOrder: current)
        name(next, after: item.token, tellingPlayer: false)
        engine.setOutputs(activeOutputSlots)
        applyVolumes()
        engine.setCrossfade(crossfadeSettings)
        engine.play(item, next: next, paused: paused, fadingOut: leaving)
        setState(paused ? .pause : .play)
        changed(.player)
    }

    func stopPlayer() {
        engine.stop()
        setState(.stop)
        playingToken = nil
        startToken = nil
        answeredFor = nil
        queuedItem = nil
        pendingElapsed = 0
        tokens.removeAll()
        taken.removeAll()
    }

    var queuedToken: UInt64? { queuedItem?.token }

    /// Records (and tells the player) which song follows the song `token`.
    private func name(_ item: PlayItem?, after token: UInt64, tellingPlayer: Bool = true) {
        answeredFor = token
        queuedItem = item
        if tellingPlayer { engine.setNext(item, after: token) }
        // A cloud song's head and tail are fetched now, so the join is gapless.
        if let item, let position = queue.position(ofID: item.queueID) { home.songs.prefetch(queue[position].song) }
    }

    /// After a queue or option change: if the song named to follow the current one is no
    /// longer the right one, name the right one — and if the decoder already took up the old
    /// one, have it drop that (it keeps playing it if some of it was already heard).
    func refreshNext() {
        guard state != .stop, let answeredFor else { return }
        let anchor = tokens[answeredFor].flatMap { queue.position(ofID: $0) }.flatMap { queue.orderIndex(ofPosition: $0) } ?? current
        let desired = followerItem(ofOrder: anchor)
        guard desired?.token != queuedToken else { return }
        let old = queuedToken
        name(desired, after: answeredFor)
        if let old, taken.contains(old), old != playingToken {
            engine.replace(from: old, with: desired)
        }
    }

    /// The song after the one at order index `order` as the player should get it: nil at the
    /// end of the queue, in single mode (MPD stops or pauses at the border), or after as many
    /// failures in a row as the queue has songs. The already named item is reused while it
    /// still fits, so its decoding is not restarted.
    private func followerItem(ofOrder order: Int?) -> PlayItem? {
        guard let order, order < queue.order.count, let next = queue.nextOrder(after: order, options: options) else { return nil }
        if options.single != .off && !options.repeatMode { return nil }
        if failureStreak >= queue.count { return nil }
        let entry = queue[queue.order[next]]
        if let queuedItem, queuedItem.queueID == entry.id, queuedItem.startMilliseconds == (entry.range?.start ?? 0),
            queuedItem.endMilliseconds == entry.range?.end, tokens[queuedItem.token] != nil
        {
            return queuedItem
        }
        return makeItem(entry, startOffset: 0)
    }

    func makeItem(_ entry: QueueItem, startOffset: Int, token: UInt64? = nil) -> PlayItem {
        let token = token ?? {
            defer { nextToken += 1 }
            return nextToken
        }()
        tokens[token] = entry.id
        let start = (entry.range?.start ?? 0) + startOffset
        var replayGain = home.replayGain
        replayGain.mode = options.replayGainMode
        replayGain.random = queue.random
        let songs = home.songs, song = entry.song, settings = replayGain
        let mixRamp = options.crossfade > 0 && options.mixRampDelay != nil
        var item = PlayItem(
            token: token, queueID: entry.id, uri: song.uri, startMilliseconds: start, endMilliseconds: entry.range?.end,
            sourceChanged: { songs.sourceChanged(song) }
        ) { try songs.openDecoder(for: song, replayGain: settings, mixRamp: mixRamp) }
        item.lengthMilliseconds = entry.playedLength
        // MPD's httpd output: the artist and the title, else the name, else the file.
        let artist = song.tag.first(.artist), title = song.tag.first(.title)
        let joined = [artist, title].compactMap { $0 }.joined(separator: " - ")
        item.streamTitle = !joined.isEmpty ? joined : song.tag.first(.name) ?? String(song.uri.split(separator: "/").last ?? "")
        return item
    }

    /// Elapsed time in the current song, relative to its range start.
    public var elapsedMilliseconds: Int {
        guard state != .stop else { return 0 }
        let status = engine.status
        guard let playingToken, status.token == playingToken, state == .play else { return pendingElapsed }
        return max(0, status.elapsedMilliseconds - (currentItem?.range?.start ?? 0))
    }

    private func consumeOrder(_ order: Int) {
        guard options.consume != .off, order < queue.order.count else { return }
        let position = queue.order[order]
        let currentID = currentItem?.id
        queue.remove(at: position)
        current = currentID.flatMap { queue.position(ofID: $0) }.flatMap { queue.orderIndex(ofPosition: $0) }
        queue.commitChange()
        onEvents(.playlist)
        // MPD 0.24's oneshot: one song consumed, then consume is off again.
        if options.consume == .oneshot {
            options.consume = .off
            onEvents(.options)
        }
    }

    private func finishSingleOneshot() {
        guard options.single == .oneshot else { return }
        options.single = .off
        onEvents(.options)
    }

    // MARK: player events

    func handle(_ event: PlayerEvent) {
        switch event {
        case .decoding(let token):
            taken.insert(token)
            // A song taken up after the follower was renamed is dropped again (unless heard).
            guard token != startToken, token != queuedToken, tokens[token] != nil, token != playingToken else { return }
            engine.replace(from: token, with: queuedItem)
        case .started(let token):
            songStarted(token)
        case .finished:
            guard state != .stop else { return }
            finishedQueue()
        case .failed(let token, let message):
            let uri = tokens[token].flatMap { queue.position(ofID: $0) }.map { queue[$0].song.uri }
            error = uri.map { "Failed to decode \($0): \(message)" } ?? message
            home.logger.error(error ?? message)
            failureStreak += 1
            // The decoder goes on with the follower of a song that broke before being heard;
            // name it now, since the song will never start.
            if token == queuedToken, let id = tokens[token], let position = queue.position(ofID: id) {
                name(followerItem(ofOrder: queue.orderIndex(ofPosition: position)), after: token)
            }
            onEvents(.player)
        case .outputFailed(let name, let message):
            outputFailed(name, message)
        case .tags(let token, let name, let title):
            streamTagged(token, name: name, title: title)
        }
    }

    /// A radio stream's `icy-name` becomes the song's Name and its StreamTitle its Title, as in
    /// MPD; `currentsong` shows them and idle clients hear `player` and `playlist`.
    private func streamTagged(_ token: UInt64, name: String?, title: String?) {
        guard let id = tokens[token] else { return }
        try? updateSong(id: id) { song in
            var items = song.tag.items
            if let name, !name.isEmpty {
                items.removeAll { $0.type == .name }
                items.append(TagItem(.name, name))
            }
            if let title, !title.isEmpty {
                items.removeAll { $0.type == .title }
                items.append(TagItem(.title, title))
            }
            song.tag.items = items
        }
        onEvents(.player)
    }

    /// An output's device failed: it is left out until playback starts again, the others play
    /// on, and only when none is left does playback stop with the error.
    private func outputFailed(_ name: String, _ message: String) {
        guard let output = outputs.first(where: { $0.name == name }), !failedOutputs.contains(name) else { return }
        let text = "Failed to open \"\(name)\" (\(output.plugin)); \(message)"
        failedOutputs.insert(name)
        error = text
        let working = activeOutputSlots.isEmpty ? "no output is left; playback stops" : "the other outputs play on"
        home.logger.error("output: \(text); \(working)")
        if state != .stop, activeOutputSlots.isEmpty { stopPlayer() }
        changed(.player)
    }

    /// The clock output reached a song's first sample: it is now the current song, the one
    /// before it is consumed (consume mode), and its follower gets named.
    private func songStarted(_ token: UInt64) {
        guard let id = tokens[token], let position = queue.position(ofID: id) else { return }
        failureStreak = 0
        var startedAnother = false
        let previous = current
        let previousToken = playingToken
        playingToken = token
        if let previousToken, previousToken != token {
            tokens[previousToken] = nil
            current = queue.orderIndex(ofPosition: position)
            if let previous { consumeOrder(previous) }
            finishSingleOneshot()
            startedAnother = true
        }
        current = queue.position(ofID: id).flatMap { queue.orderIndex(ofPosition: $0) }
        // Tokens grow along the chain: a follower already named for a later song (one that
        // failed before being heard) must not be replaced by an answer for this one.
        if answeredFor.map({ $0 < token }) ?? true {
            name(followerItem(ofOrder: current), after: token)
        } else {
            refreshNext()
        }
        if startedAnother { clearStartedPriority() }
        // The command that started this song (play, seek, next, previous, a deleted current
        // song) already woke `player` idlers; MPD 0.24 wakes them once for it, so only a song
        // the queue reached by itself wakes them here.
        if token == startToken && !startedAnother {
            home.stateChanged()
        } else {
            changed(.player)
        }
    }

    /// MPD's SongStarted: a song loses its priority when it starts (the priority was what
    /// brought it forward), without reordering; the queue version moves on.
    private func clearStartedPriority() {
        guard let current, queue.setPriority(0, at: queue.order[current], currentOrder: nil, reorder: false) else { return }
        queueChanged()
    }

    /// The decoder ran out of songs. In single mode the next song is loaded paused at its
    /// start (MPD's border pause); otherwise playback stops at the end of the queue.
    private func finishedQueue() {
        let last = current
        engine.markStopped()
        playingToken = nil
        startToken = nil
        answeredFor = nil
        queuedItem = nil
        tokens.removeAll()
        taken.removeAll()
        failureStreak = 0
        var followingID: Int?
        if let last, options.single != .off, !options.repeatMode,
            let order = queue.nextOrder(after: last, options: optionsIgnoringSingle)
        {
            followingID = queue[queue.order[order]].id
        }
        if let last { consumeOrder(last) }
        if options.single == .oneshot {
            options.single = .off
            onEvents(.options)
        }
        if let following = followingID.flatMap({ queue.position(ofID: $0) }).flatMap({ queue.orderIndex(ofPosition: $0) }) {
            current = following
            startCurrent(at: 0, paused: true)
            clearStartedPriority()
            return
        }
        setState(.stop)
        current = nil
        changed(.player)
    }
}
