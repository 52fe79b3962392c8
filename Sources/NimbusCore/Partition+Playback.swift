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
            startCurrent(at: 0)
            consumeOrder(old)
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
        startCurrent(at: 0)
    }

    /// `seek`/`seekid`: jumps inside a song, starting it if it is not the current one.
    public func seek(position: Int, milliseconds: Int) throws(PlaybackError) {
        guard position < queue.count else { throw .badSongIndex }
        let order = queue.orderIndex(ofPosition: position)
        if order == current, state != .stop, let playingToken, tokens[playingToken] == queue[position].id {
            engine.seek(toMilliseconds: offset(milliseconds, in: queue[position]))
            if state == .pause { pendingElapsed = milliseconds }
            changed(.player)
            return
        }
        current = order
        let wasPaused = state == .pause
        startCurrent(at: milliseconds)
        if wasPaused { pause(true) }
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
        options = updated
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

    /// Starts the current song `milliseconds` in (from its range start) with the next queued.
    func startCurrent(at milliseconds: Int) {
        guard let position = currentPosition else { return }
        error = nil
        // Events still in flight for songs started before this one must not move `current`.
        tokens.removeAll()
        queuedToken = nil
        let item = makeItem(queue[position], startOffset: milliseconds)
        playingToken = nil
        pendingElapsed = milliseconds
        let next = nextItem()
        queuedToken = next?.token
        engine.setOutputs(activeOutputSlots)
        applyVolumes()
        engine.play(item, next: next)
        setState(.play)
        changed(.player)
    }

    func stopPlayer() {
        engine.stop()
        setState(.stop)
        playingToken = nil
        queuedToken = nil
        pendingElapsed = 0
        tokens.removeAll()
    }

    /// Tells the player which song follows the current one (after any queue or option change).
    func refreshNext() {
        guard state != .stop else { return }
        let next = nextItem()
        if next?.token == nil && queuedToken == nil { return }
        if let queuedToken, let next, tokens[queuedToken] == next.queueID, sameRange(queuedToken, next.queueID) { return }
        queuedToken = next?.token
        engine.setNext(next)
    }

    private func sameRange(_ token: UInt64, _ id: Int) -> Bool { true }

    private func nextItem() -> PlayItem? {
        guard let current, let order = queue.nextOrder(after: current, options: options) else { return nil }
        if options.single != .off && !options.repeatMode { return nil }
        if let queuedToken, let id = tokens[queuedToken], queue.position(ofID: id) == queue.order[order] {
            // Keep the already queued item (its decoding may have started).
            return makeItem(queue[queue.order[order]], startOffset: 0, token: queuedToken)
        }
        return makeItem(queue[queue.order[order]], startOffset: 0)
    }

    func makeItem(_ entry: QueueItem, startOffset: Int, token: UInt64? = nil) -> PlayItem {
        let token = token ?? {
            defer { nextToken += 1 }
            return nextToken
        }()
        tokens[token] = entry.id
        let start = (entry.range?.start ?? 0) + startOffset
        return PlayItem(
            token: token, queueID: entry.id, uri: entry.song.uri, startMilliseconds: start,
            endMilliseconds: entry.range?.end, open: opener(entry.song))
    }

    private func offset(_ milliseconds: Int, in entry: QueueItem) -> Int {
        (entry.range?.start ?? 0) + milliseconds
    }

    /// Elapsed time in the current song, relative to its range start.
    public var elapsedMilliseconds: Int {
        guard state != .stop else { return 0 }
        let status = engine.status
        guard let playingToken, status.token == playingToken, state == .play else { return pendingElapsed }
        return max(0, status.elapsedMilliseconds - (currentItem?.range?.start ?? 0))
    }

    private func consumeOrder(_ order: Int) {
        guard options.consume, order < queue.order.count else { return }
        let position = queue.order[order]
        let currentID = currentItem?.id
        queue.remove(at: position)
        current = currentID.flatMap { queue.position(ofID: $0) }.flatMap { queue.orderIndex(ofPosition: $0) }
        queue.commitChange()
        onEvents(.playlist)
    }

    private func finishSingleOneshot() {
        guard options.single == .oneshot else { return }
        options.single = .off
        onEvents(.options)
    }

    // MARK: player events

    func handle(_ event: PlayerEvent) {
        switch event {
        case .started(let token):
            guard let id = tokens[token], let position = queue.position(ofID: id) else { return }
            let previous = current
            let previousToken = playingToken
            playingToken = token
            pendingElapsed = 0
            if queuedToken == token { queuedToken = nil }
            if let previousToken, previousToken != token {
                // The player moved on by itself: the previous song ended.
                tokens[previousToken] = nil
                current = queue.orderIndex(ofPosition: position)
                if let previous { consumeOrder(previous) }
                finishSingleOneshot()
            }
            current = queue.position(ofID: id).flatMap { queue.orderIndex(ofPosition: $0) }
            refreshNext()
            changed(.player)
        case .finished:
            guard state != .stop else { return }
            let last = current
            engine.markStopped()
            setState(.stop)
            playingToken = nil
            queuedToken = nil
            tokens.removeAll()
            if let last { consumeOrder(last) }
            if options.single == .oneshot {
                options.single = .off
                onEvents(.options)
            } else if options.single == .on, let last, last + 1 < queue.count || options.repeatMode {
                // Single mode stops after the song and selects the next one.
                current = queue.nextOrder(after: last, options: optionsIgnoringSingle)
            } else {
                current = nil
            }
            changed(.player)
        case .failed(let token, let message):
            let uri = tokens[token].flatMap { queue.position(ofID: $0) }.map { queue[$0].song.uri }
            error = uri.map { "Failed to decode \($0): \(message)" } ?? message
            if token == queuedToken {
                queuedToken = nil
            }
            onEvents(.player)
        case .outputFailed(let name, let message):
            error = "Failed to open \"\(name)\": \(message)"
            if let clock = outputs.first(where: { $0.enabled }), clock.name == name {
                stopPlayer()
            }
            changed(.player)
        }
    }
}
