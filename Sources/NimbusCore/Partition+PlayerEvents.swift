import NimbusModel
import NimbusPlayer
import NimbusQueue
import NimbusSupport

/// What the player reports, on the core loop: the follower handshake decides what each event
/// means for the queue, and this file carries its actions out.
extension Partition {
    func handle(_ event: PlayerEvent) {
        switch event {
        case .decoding(let token):
            perform(handshake.decoding(token))
        case .started(let token):
            // A song deleted from the queue since it was handed to the player moves nothing.
            guard let id = handshake.queueID(of: token), let position = queue.position(ofID: id) else { return }
            failureStreak = 0
            let previous = current
            current = queue.orderIndex(ofPosition: position)
            // The queue moved on by itself: the song before played to its end.
            if let previous, previous != current { songPlayedThrough(order: previous) }
            perform(handshake.started(token), leaving: previous)
        case .finished:
            guard state != .stop else { return }
            finishedQueue()
        case .failed(let token, let message):
            let uri = handshake.queueID(of: token).flatMap { queue.position(ofID: $0) }.map { queue[$0].song.uri }
            error = uri.map { "Failed to decode \($0): \(message)" } ?? message
            home.logger.error(error ?? message)
            failureStreak += 1
            perform(handshake.failed(token))
            onEvents(.player)
        case .outputFailed(let name, let message):
            outputFailed(name, message)
        case .tags(let token, let name, let title):
            // A radio stream's `icy-name` becomes the song's Name and its StreamTitle its
            // Title, as in MPD; `currentsong` shows them and idle clients hear `player` and
            // `playlist`.
            guard let id = handshake.queueID(of: token) else { return }
            try? updateSong(id: id) { $0.applyStreamTags(name: name, title: title) }
            onEvents(.player)
        case .ranDry(let output, let times):
            home.logger.notice("output \"\(output)\" ran dry \(times) time\(times == 1 ? "" : "s") during a song: the decoder fell behind")
        }
    }

    /// Carries out the handshake's actions in order. `leaving`: after a song started, the
    /// order index of the song heard before it.
    func perform(_ actions: [FollowerHandshake.Action], leaving: Int? = nil) {
        for action in actions {
            switch action {
            case .setNext(let item, let token):
                engine.setNext(item, after: token)
                item?.prefetch()
            case .replace(let token, let item):
                engine.replace(from: token, with: item)
            case .chooseFollower(let token):
                let anchor = handshake.queueID(of: token).flatMap { queue.position(ofID: $0) }.flatMap { queue.orderIndex(ofPosition: $0) }
                perform(handshake.chose(followerItem(ofOrder: anchor ?? current), for: token))
            case .advance:
                // The song heard before is over: consume mode removes it, oneshot is spent.
                if let leaving { consumeOrder(leaving) }
                if options.spendSingleOneshot() { onEvents(.options) }
            case .announce(let advanced, let wakesPlayer):
                if advanced { clearStartedPriority() }
                // The command that started this song (play, seek, next, previous, a deleted
                // current song) already woke `player` idlers; MPD 0.24 wakes them once for
                // it, so only a song the queue reached by itself wakes them here.
                if wakesPlayer { changed(.player) } else { home.stateChanged() }
            }
        }
    }

    /// An output's device failed: it is left out until playback starts or resumes again, the
    /// others play on, and when none is left playback pauses with the error — MPD's way ("the
    /// user may resume playback as soon as an audio output becomes available"); resuming
    /// tries the outputs again.
    private func outputFailed(_ name: String, _ message: String) {
        guard let output = outputs.noteFailure(of: name) else { return }
        let text = "Failed to open \"\(name)\" (\(output.plugin)); \(message)"
        error = text
        let working = outputs.activeSlots.isEmpty ? "no output is left; playback pauses" : "the other outputs play on"
        home.logger.error("output: \(text); \(working)")
        if state == .play, outputs.activeSlots.isEmpty { pause(true) }
        changed(.player)
    }

    /// MPD's SongStarted: a song loses its priority when it starts (the priority was what
    /// brought it forward), without reordering; the queue version moves on.
    func clearStartedPriority() {
        guard let current, queue.setPriority(0, at: queue.order[current], currentOrder: nil, reorder: false) else { return }
        queueChanged()
    }

    /// The decoder ran out of songs. In single mode, and when the sleep timer waited for the
    /// end of this song, the next song is loaded paused at its start (MPD's border pause);
    /// otherwise playback stops at the end of the queue.
    private func finishedQueue() {
        let last = current
        engine.markStopped()
        handshake.reset()
        failureStreak = 0
        var followingID: Int?
        let sleeping = sleep.stopsAfterCurrent
        if let last, (options.single != .off && !options.repeatMode) || sleeping,
            let order = queue.nextOrder(after: last, options: optionsIgnoringSingle)
        {
            followingID = queue[queue.order[order]].id
        }
        if sleeping { sleep.songEnded() }
        if let last { songPlayedThrough(order: last) }
        if let last { consumeOrder(last) }
        if options.spendSingleOneshot() { onEvents(.options) }
        if let following = followingID.flatMap({ queue.position(ofID: $0) }).flatMap({ queue.orderIndex(ofPosition: $0) }) {
            current = following
            startCurrent(at: 0, paused: true, resuming: true)
            clearStartedPriority()
            return
        }
        state = .stop
        current = nil
        changed(.player)
    }
}
