import NimbusModel
import NimbusPlayer
import NimbusQueue
import NimbusSupport

/// Saving to and restoring from the state file.
extension Partition {
    public func savedState() -> SavedState {
        var saved = stateWithoutQueue()
        saved.entries = Self.entries(of: queue.items)
        return saved
    }

    /// What `savedState` holds except the queue's entries, with the queue's items as they are
    /// (a copy-on-write array, taken in constant time): the state keeper turns them into
    /// entries on its own thread, so a 50,000-song queue costs the core loop nothing.
    func stateSnapshot() -> (state: SavedState, items: [QueueItem]) {
        (stateWithoutQueue(), queue.items)
    }

    nonisolated static func entries(of items: [QueueItem]) -> [SavedState.Entry] {
        items.map { item in
            SavedState.Entry(song: item.song, priority: item.priority, range: item.range, isDetached: item.song.isURL)
        }
    }

    private func stateWithoutQueue() -> SavedState {
        var saved = SavedState()
        saved.partition = name
        saved.volume = outputs.all.lazy.compactMap(\.softwareLevel).first
        saved.outputs = outputs.all.filter { !$0.isPlaceholder }.map { ($0.name, $0.enabled) }
        saved.state = state
        saved.current = currentPosition
        saved.elapsedMilliseconds = elapsedMilliseconds
        saved.options = options
        saved.lastLoadedPlaylist = lastLoadedPlaylist
        saved.random = queue.random
        return saved
    }

    /// Rebuilds queue, options, outputs and volume; `resolve` finds library songs again (nil
    /// drops an entry whose file is gone, as MPD does). Playback resumes at the saved
    /// position, paused when it was paused or `restorePaused` asks for it.
    public func restore(_ saved: SavedState, restorePaused: Bool, resolve: (SavedState.Entry) -> Song?) {
        for (name, enabled) in saved.outputs {
            outputs.all.first { $0.name == name }?.enabled = enabled
        }
        if let volume = saved.volume { outputs.restoreSoftwareVolume(volume) }
        options = saved.options
        lastLoadedPlaylist = saved.lastLoadedPlaylist
        var currentPosition: Int?
        for (index, entry) in saved.entries.enumerated() {
            guard queue.count < maxQueueLength, let song = resolve(entry) else { continue }
            queue.add(song, priority: entry.priority)
            if let range = entry.range { queue.setRange(range, at: queue.count - 1) }
            if index == saved.current { currentPosition = queue.count - 1 }
        }
        queue.commitChange()
        if saved.random { queue.setRandom(true, current: currentPosition) }
        current = currentPosition.flatMap { queue.orderIndex(ofPosition: $0) }
        if current != nil, saved.state != .stop {
            startCurrent(at: saved.elapsedMilliseconds, paused: saved.state == .pause || restorePaused)
        } else if current != nil {
            pendingElapsed = 0
        }
        onEvents([.playlist, .options, .player, .mixer, .output])
    }
}
