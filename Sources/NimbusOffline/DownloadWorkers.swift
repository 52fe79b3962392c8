import Foundation
import NimbusInput
import NimbusStorage

/// The download threads (`offline_transfers` of them). A thread sleeps until there is work:
/// woken by a change (a pin, a retry, a download ending, an account signing in), or at the
/// earliest time a failed song is due again; songs waiting for disk space are looked at again
/// every half minute (the disk is also freed by others).
extension OfflineDownloads {
    static let spaceRecheck: Int64 = 30

    func work() {
        while true {
            let generation = wakeup.withLock { wakeups }
            if let (uri, file, stop) = next() {
                run(uri, file, stop)
                continue
            }
            if state.withLock({ $0.stopped }) { return }
            let deadline = nextDeadline()
            wakeup.withLock {
                guard wakeups == generation else { return }
                if let deadline {
                    _ = wakeup.wait(until: Date(timeIntervalSince1970: Double(deadline)))
                } else {
                    wakeup.wait()
                }
            }
        }
    }

    /// When a sleeping thread must look again without being woken: the earliest retry, or
    /// the space recheck.
    private func nextDeadline() -> Int64? {
        let now = Int64(Date().timeIntervalSince1970)
        return state.withLock { state in
            var deadline: Int64?
            for song in state.songs.values {
                var due: Int64?
                if song.state == .failed, !song.signedOut, !song.unresolvable { due = song.retryAt }
                if song.state == .waitingForSpace { due = now + Self.spaceRecheck }
                if let due { deadline = min(deadline ?? due, due) }
            }
            return deadline
        }
    }

    /// The next song to fetch, started. Songs that would not fit in the budget or on the
    /// disk wait for space (and are looked at again each time).
    private func next() -> (String, OfflineFile, ReadInterrupt)? {
        let space = DiskSpace.available(at: cacheDirectory)
        let now = Int64(Date().timeIntervalSince1970)
        var changed = false
        defer { if changed { announce() } }
        return state.withLock { state -> (String, OfflineFile, ReadInterrupt)? in
            guard !state.stopped else { return nil }
            var committed = state.songs.values.filter { $0.state == .downloading || $0.state == .completed }.reduce(0) { $0 + $1.total }
            for uri in state.order {
                guard var song = state.songs[uri], song.isDue(now: now), let file = song.file else { continue }
                guard file.health.report.state != .signInNeeded else { continue }
                let missing = max(0, song.total - file.storedBytes)
                var waiting: String?
                if missing > 0, committed + song.total > budget {
                    waiting = "needs \(Self.size(song.total)); cache_size is \(Self.size(budget)) and \(Self.size(committed)) of it is pinned"
                } else if missing > 0, let space, missing > space.free - space.margin {
                    waiting = "needs \(Self.size(missing)) more; the cache disk has \(Self.size(max(0, space.free))) free"
                }
                if let waiting {
                    if song.waitForSpace(waiting) {
                        state.songs[uri] = song
                        changed = true
                    }
                    continue
                }
                committed += song.total
                song.start()
                state.songs[uri] = song
                let stop = ReadInterrupt()
                state.running[uri] = stop
                changed = true
                return (uri, file, stop)
            }
            return nil
        }
    }

    private func run(_ uri: String, _ file: OfflineFile, _ stop: ReadInterrupt) {
        var last = (time: Date(), bytes: file.storedBytes)
        var failure: InputError?
        do {
            try file.download(
                progress: { bytes in
                    let now = Date()
                    let elapsed = now.timeIntervalSince(last.time)
                    let rate = elapsed >= 0.5 ? Double(bytes - last.bytes) / elapsed : nil
                    if rate != nil { last = (now, bytes) }
                    let moved = state.withLock { state in state.songs[uri]?.progressed(to: bytes, rate: rate) ?? false }
                    if moved { announce(progress: true) }
                },
                stop: stop)
        } catch {
            failure = error
        }
        finish(uri, file, failure)
    }

    private func finish(_ uri: String, _ file: OfflineFile, _ failure: InputError?) {
        let signedOut = file.health.checkedReport().state == .signInNeeded
        let now = Int64(Date().timeIntervalSince1970)
        var discard = false
        state.withLock { state in
            state.running[uri] = nil
            guard var song = state.songs[uri] else { return }
            if song.pins.isEmpty {
                state.songs[uri] = nil
                state.order.removeAll { $0 == uri }
                return
            }
            if signedOut, failure != nil || song.stopRequested {
                song.stoppedSignedOut(account: file.account)
                discard = true
            } else if let failure, !song.stopRequested {
                let delay = song.failed(failure.message, now: now)
                logger.warning("offline download of \(uri) failed: \(failure.message); trying again in \(delay) s")
            } else if song.stopRequested || failure != nil {
                song.stopped(held: Self.isHeld(song, state.pins))
            } else {
                song.completed()
                logger.info("offline: \(uri) is on disk")
            }
            state.songs[uri] = song
        }
        if discard { file.discard() }
        announce()
        wake()
    }

    /// An account's credentials changed (a token file written or removed): songs of an
    /// account that signed out drop their partial downloads (completed ones stay and play),
    /// songs of an account signed in again go back in the queue.
    public func accountsChanged() {
        var dropped: [OfflineFile] = []
        var stops: [ReadInterrupt] = []
        var resumed = false
        var changed = false
        let unfinished = state.withLock { state in
            state.order.compactMap { uri in state.songs[uri].flatMap { $0.state == .completed ? nil : $0.file } }
        }
        var signedOut: [String: Bool] = [:]
        for file in unfinished where signedOut[file.account] == nil {
            signedOut[file.account] = file.health.checkedReport().state == .signInNeeded
        }
        state.withLock { state in
            for uri in state.order {
                guard var song = state.songs[uri], let file = song.file, song.state != .completed else { continue }
                if signedOut[file.account] == true {
                    guard !song.signedOut, song.state != .downloading || !song.stopRequested else { continue }
                    if song.signOut(account: file.account) { dropped.append(file) }
                    if song.stopRequested, let stop = state.running[uri] { stops.append(stop) }
                } else if song.signIn(held: Self.isHeld(song, state.pins)) {
                    file.setPinned(true)
                    resumed = true
                } else {
                    continue
                }
                state.songs[uri] = song
                changed = true
            }
        }
        for stop in stops { stop.interrupt() }
        for file in dropped { file.discard() }
        if changed { announce() }
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
