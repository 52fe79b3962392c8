import Foundation
import NimbusInput
import NimbusStorage

/// The download threads (`offline_transfers` of them) and the ticker that watches accounts
/// and tells clients about progress.
extension OfflineDownloads {
    func work() {
        while true {
            if let (uri, file) = next() {
                run(uri, file)
                continue
            }
            if state.withLock({ $0.stopped }) { return }
            wakeup.withLock { _ = wakeup.wait(until: Date().addingTimeInterval(1)) }
        }
    }

    /// The next song to fetch, marked downloading. Songs that would not fit in the budget or
    /// on the disk wait for space (and are looked at again each time).
    private func next() -> (String, OfflineFile)? {
        let space = DiskSpace.available(at: cacheDirectory)
        let now = Int64(Date().timeIntervalSince1970)
        return state.withLock { state -> (String, OfflineFile)? in
            guard !state.stopped else { return nil }
            var committed = state.songs.values.filter { $0.state == .downloading || $0.state == .completed }.reduce(0) { $0 + $1.total }
            for uri in state.order {
                guard var song = state.songs[uri], let file = song.file else { continue }
                switch song.state {
                case .queued, .waitingForSpace: break
                case .failed:
                    guard !song.signedOut, song.unresolvable == nil, let at = song.retryAt, at <= now else { continue }
                default: continue
                }
                guard file.health.report.state != .signInNeeded else { continue }
                let missing = max(0, song.total - file.storedBytes)
                var waiting: String?
                if missing > 0, committed + song.total > budget {
                    waiting = "needs \(Self.size(song.total)); cache_size is \(Self.size(budget)) and \(Self.size(committed)) of it is pinned"
                } else if missing > 0, let space, missing > space.free - space.margin {
                    waiting = "needs \(Self.size(missing)) more; the cache disk has \(Self.size(max(0, space.free))) free"
                }
                if let waiting {
                    if song.state != .waitingForSpace || song.message != waiting {
                        song.state = .waitingForSpace
                        song.message = waiting
                        state.changed = true
                        state.songs[uri] = song
                    }
                    continue
                }
                committed += song.total
                song.state = .downloading
                song.stop = false
                song.message = nil
                song.retryAt = nil
                state.songs[uri] = song
                state.changed = true
                return (uri, file)
            }
            return nil
        }
    }

    private func run(_ uri: String, _ file: OfflineFile) {
        var last = (time: Date(), bytes: file.storedBytes)
        var failure: InputError?
        do {
            try file.download(
                progress: { bytes in
                    let now = Date()
                    let elapsed = now.timeIntervalSince(last.time)
                    let rate = elapsed >= 0.5 ? Double(bytes - last.bytes) / elapsed : nil
                    if rate != nil { last = (now, bytes) }
                    state.withLock { state in
                        guard var song = state.songs[uri], song.done != bytes || rate != nil else { return }
                        song.done = bytes
                        if let rate { song.speed = song.speed == 0 ? rate : song.speed * 0.6 + rate * 0.4 }
                        state.songs[uri] = song
                        state.changed = true
                    }
                },
                shouldStop: { state.withLock { $0.songs[uri]?.stop ?? true } })
        } catch {
            failure = error
        }
        finish(uri, file, failure)
    }

    private func finish(_ uri: String, _ file: OfflineFile, _ failure: InputError?) {
        let signedOut = file.health.report.state == .signInNeeded
        let now = Int64(Date().timeIntervalSince1970)
        var discard = false
        state.withLock { state in
            state.changed = true
            guard var song = state.songs[uri] else { return }
            song.speed = 0
            defer { song.stop = false }
            if song.pins.isEmpty {
                state.songs[uri] = nil
                state.order.removeAll { $0 == uri }
                return
            }
            if signedOut, failure != nil || song.stop {
                song.state = .failed
                song.signedOut = true
                song.message = "sign-in needed — run: nimbus authorize \(file.account)"
                song.done = 0
                discard = true
            } else if let failure, !song.stop {
                song.attempts += 1
                song.state = .failed
                song.message = failure.message
                song.retryAt = now + min(15 << min(song.attempts - 1, 6), 600)
                logger.warning("offline download of \(uri) failed: \(failure.message); trying again in \(song.retryAt! - now) s")
            } else if song.stop {
                song.state = Self.isPaused(song, state.pins) ? .paused : .queued
            } else {
                song.state = .completed
                song.done = song.total
                song.attempts = 0
                song.message = nil
                logger.info("offline: \(uri) is on disk")
            }
            state.songs[uri] = song
        }
        if discard { file.discard() }
        wake()
    }

    /// Twice a second: accounts that signed out drop their partial downloads (completed ones
    /// stay and play), accounts signed in again resume, and subscribed clients hear of changes.
    func tick() {
        while true {
            Thread.sleep(forTimeInterval: 0.5)
            if state.withLock({ $0.stopped }) { return }
            watchAccounts()
            let changed = state.withLock { state in
                defer { state.changed = false }
                return state.changed
            }
            if changed { notify() }
        }
    }

    private func watchAccounts() {
        var dropped: [OfflineFile] = []
        var resumed = false
        let unfinished = state.withLock { state in
            state.order.compactMap { uri in state.songs[uri].flatMap { $0.state == .completed ? nil : $0.file } }
        }
        var seen = Set<String>()
        for file in unfinished where seen.insert(file.account).inserted { _ = file.health.checkedReport() }
        state.withLock { state in
            for uri in state.order {
                guard var song = state.songs[uri], let file = song.file, song.state != .completed else { continue }
                let signedOut = file.health.report.state == .signInNeeded
                if signedOut, !song.signedOut {
                    if song.state == .downloading {
                        song.stop = true
                    } else {
                        song.signedOut = true
                        song.state = .failed
                        song.message = "sign-in needed — run: nimbus authorize \(file.account)"
                        if song.done > 0 { dropped.append(file) }
                        song.done = 0
                    }
                } else if !signedOut, song.signedOut {
                    song.signedOut = false
                    song.state = Self.isPaused(song, state.pins) ? .paused : .queued
                    song.message = nil
                    file.setPinned(true)
                    resumed = true
                } else {
                    continue
                }
                state.songs[uri] = song
                state.changed = true
            }
        }
        for file in dropped { file.discard() }
        if resumed { wake() }
    }

    static func size(_ bytes: Int64) -> String {
        var value = Double(bytes)
        for unit in ["B", "KiB", "MiB", "GiB"] {
            if value < 1024 || unit == "GiB" { return unit == "B" ? "\(bytes) B" : String(format: "%.1f", value) + " " + unit }
            value /= 1024
        }
        return "\(bytes) B"
    }
}
