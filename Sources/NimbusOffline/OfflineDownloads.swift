import Foundation
import NimbusInput
import NimbusStorage
import NimbusSupport
import Synchronization

/// Offline music at run time: the pins, the songs they hold, and a few download threads that
/// fetch them whole through the range cache at the pinning priority (below playing, seeking
/// and the next song's prefetch), resuming at the last journaled byte after a crash, a
/// dropped connection or an account that was away. Pinned bytes are never evicted; a pin
/// that would not fit in `cache_size` or on the disk waits for space instead of evicting
/// another pin. The server resolves pins to song URIs (it has the database and the
/// playlists) and hands them over with `setSongs`.
public final class OfflineDownloads: Sendable {
    struct State: Sendable {
        var pins: [Pin] = []
        var songs: [String: SongDownload] = [:]
        /// Song URIs in the order they were pinned: downloads start in that order.
        var order: [String] = []
        var stopped = false
        /// How to stop the songs being downloaded now.
        var running: [String: ReadInterrupt] = [:]
    }

    let state = Mutex(State())
    /// Wakes the workers when there is new work (or they must stop).
    let wakeup = NSCondition()
    /// Counts `wake` calls (with `wakeup` locked), so a worker that found no work just
    /// before a wake does not go to sleep through it.
    nonisolated(unsafe) var wakeups = 0
    let storage: any Storage
    let budget: Int64
    let cacheDirectory: String
    let logger: Logger
    private let file: PinFile
    private let notify: @Sendable () async -> Void
    private let transfers: Int
    /// The threads start with the first song to download: a daemon without pins runs none.
    private let started = Mutex(false)
    /// Where songs not described yet are looked up (it may take the network).
    private let lookups: BlockingWork
    /// A notice is on its way to clients; changes until it is delivered ride along.
    private let noticePending = Atomic(false)
    /// When progress alone last caused a notice (progress notices come at most twice a second).
    private let lastProgressNotice = Atomic<UInt64>(0)

    /// `configured`: the config's `pin` lines. `notify` tells clients that states or progress
    /// changed (the `offline` idle event); it is called once per batch of changes.
    public init(
        storage: any Storage, budget: Int64, cacheDirectory: String, path: String, transfers: Int, configured: [Pin],
        work: BlockingWork, logger: Logger, notify: @escaping @Sendable () async -> Void
    ) {
        lookups = work
        self.storage = storage
        self.budget = budget
        self.cacheDirectory = cacheDirectory
        self.logger = logger
        self.notify = notify
        file = PinFile(path: path, logger: logger)
        var pins = configured
        for pin in file.load() where !pins.contains(where: { $0.id == pin.id }) { pins.append(pin) }
        state.withLock { $0.pins = pins }
        self.transfers = max(1, transfers)
    }

    private func startThreads() {
        guard started.withLock({ started in
            defer { started = true }
            return !started
        }) else { return }
        for index in 0..<transfers {
            DaemonThread.start(name: "offline-\(index)") { [self] in work() }
        }
    }

    public var pins: [Pin] { state.withLock { $0.pins } }

    // MARK: pins

    /// False when it was pinned already (then nothing changes).
    @discardableResult
    public func add(_ pin: Pin) -> Bool {
        let added = state.withLock { state -> Bool in
            guard !state.pins.contains(where: { $0.id == pin.id }) else { return false }
            state.pins.append(pin)
            return true
        }
        if added {
            save()
            announce()
        }
        return added
    }

    /// Unpins: its songs no other pin holds stop downloading, and their bytes become ordinary
    /// cache, evicted when the budget needs room.
    public func remove(_ id: Pin.ID) throws(OfflineError) {
        let stops = try state.withLock { state throws(OfflineError) -> [ReadInterrupt] in
            guard let index = state.pins.firstIndex(where: { $0.id == id }) else { throw Self.noSuchPin(id) }
            guard !state.pins[index].configured else {
                throw OfflineError(kind: .configured, message: "\"\(id.name)\" is pinned by a pin line of the config file; remove it there")
            }
            state.pins.remove(at: index)
            for uri in state.order { state.songs[uri]?.pins.remove(id) }
            return Self.dropUnpinned(&state)
        }
        for stop in stops { stop.interrupt() }
        save()
        announce()
        wake()
    }

    /// Pauses or resumes one pin, or every pin (nil).
    public func setPaused(_ paused: Bool, _ id: Pin.ID?) throws(OfflineError) {
        let stops = try state.withLock { state throws(OfflineError) -> [ReadInterrupt] in
            let indices = try Self.indices(of: id, in: state)
            for index in indices { state.pins[index].paused = paused }
            let ids = Set(indices.map { state.pins[$0].id })
            var stops: [ReadInterrupt] = []
            for uri in state.order {
                guard var song = state.songs[uri], !song.pins.isDisjoint(with: ids) else { continue }
                if Self.isHeld(song, state.pins) {
                    song.hold()
                    if song.stopRequested, let stop = state.running[uri] { stops.append(stop) }
                } else {
                    song.release()
                }
                state.songs[uri] = song
            }
            return stops
        }
        for stop in stops { stop.interrupt() }
        save()
        announce()
        wake()
    }

    /// Failed downloads of one pin (or all) are tried again now.
    public func retry(_ id: Pin.ID?) throws(OfflineError) {
        try state.withLock { state throws(OfflineError) in
            let ids = Set(try Self.indices(of: id, in: state).map { state.pins[$0].id })
            for uri in state.order {
                guard var song = state.songs[uri], !song.pins.isDisjoint(with: ids) else { continue }
                song.retryNow()
                state.songs[uri] = song
            }
        }
        announce()
        wake()
        resolveInBackground()
    }

    /// The songs each pin holds now (after an update, a playlist edit, a new pin), as
    /// `songsOf` finds them (the server's database and playlists; called on the caller's
    /// thread for each pin). Songs new to the pins are queued; songs no pin holds any more
    /// are let go. The server calls in; nothing here calls the server.
    public func resync(_ songsOf: (Pin) -> [String]) {
        var songs: [Pin.ID: [String]] = [:]
        for pin in pins { songs[pin.id] = songsOf(pin) }
        setSongs(songs)
    }

    /// The songs each pin holds now.
    func setSongs(_ songs: [Pin.ID: [String]]) {
        if songs.values.contains(where: { !$0.isEmpty }), !state.withLock({ $0.stopped }) { startThreads() }
        let stops = state.withLock { state -> [ReadInterrupt] in
            var wanted: [String: Set<Pin.ID>] = [:]
            var order: [String] = []
            for pin in state.pins {
                for uri in songs[pin.id] ?? [] {
                    if wanted[uri] == nil { order.append(uri) }
                    wanted[uri, default: []].insert(pin.id)
                }
            }
            for uri in state.order where wanted[uri] == nil { state.songs[uri]?.pins = [] }
            let stops = Self.dropUnpinned(&state)
            for uri in order {
                if state.songs[uri] == nil {
                    let pins = wanted[uri] ?? []
                    state.songs[uri] = SongDownload(uri: uri, pins: pins, held: Self.isHeld(pins, state.pins))
                    state.order.append(uri)
                } else {
                    state.songs[uri]?.pins = wanted[uri] ?? []
                }
            }
            return stops
        }
        for stop in stops { stop.interrupt() }
        announce()
        resolveInBackground()
        wake()
    }

    /// Stops the download threads (the daemon is exiting; what arrived is journaled).
    public func stop() {
        let stops = state.withLock { state -> [ReadInterrupt] in
            state.stopped = true
            for uri in state.order { _ = state.songs[uri]?.requestStop() }
            return Array(state.running.values)
        }
        for stop in stops { stop.interrupt() }
        wake()
    }

    // MARK: reports

    public func pinReports() -> [PinReport] {
        let now = Int64(Date().timeIntervalSince1970)
        return state.withLock { state in
            state.pins.map { pin in
                let songs = state.order.compactMap { state.songs[$0] }.filter { $0.pins.contains(pin.id) }
                let bytes = songs.reduce(0) { $0 + $1.total }
                let done = songs.reduce(0) { $0 + min($1.done, $1.total) }
                let speed = Int64(songs.filter { $0.state == .downloading }.reduce(0) { $0 + $1.speed })
                let states = Set(songs.map(\.state))
                let overall: DownloadState =
                    pin.paused && !states.isSubset(of: [.completed]) ? .paused
                    : states.contains(.downloading) ? .downloading
                    : states.contains(.queued) ? .queued
                    : states.contains(.waitingForSpace) ? .waitingForSpace
                    : states.contains(.failed) ? .failed
                    : states.contains(.paused) ? .paused : .completed
                let problem = songs.first { $0.state == .failed || $0.state == .waitingForSpace }
                let message = problem.map { song -> String in
                    let retry = song.retryAt.map { $0 > now ? " (next try in \($0 - now) s)" : "" } ?? ""
                    return (song.message ?? song.state.rawValue) + retry
                }
                return PinReport(
                    pin: pin, state: overall, songs: songs.count, completed: songs.filter { $0.state == .completed }.count,
                    bytes: bytes, done: done, speed: speed, eta: speed > 0 ? (bytes - done) / speed : nil, message: message)
            }
        }
    }

    /// Every song of the pins, or of one.
    public func songReports(_ id: Pin.ID?) throws(OfflineError) -> [SongReport] {
        try state.withLock { state throws(OfflineError) in
            if let id, !state.pins.contains(where: { $0.id == id }) { throw Self.noSuchPin(id) }
            return state.order.compactMap { state.songs[$0] }.filter { id == nil || $0.pins.contains(id!) }.map { song in
                SongReport(
                    uri: song.uri, state: song.state, done: min(song.done, song.total), bytes: song.total, speed: Int64(song.speed),
                    message: song.message, retryAt: song.state == .failed ? song.retryAt : nil)
            }
        }
    }

    // MARK: helpers

    static func noSuchPin(_ id: Pin.ID) -> OfflineError {
        OfflineError(kind: .noSuchPin, message: id.playlist ? "playlist \"\(id.name)\" is not pinned" : "\"\(id.name)\" is not pinned")
    }

    static func indices(of id: Pin.ID?, in state: State) throws(OfflineError) -> [Int] {
        guard let id else { return Array(state.pins.indices) }
        guard let index = state.pins.firstIndex(where: { $0.id == id }) else { throw noSuchPin(id) }
        return [index]
    }

    /// Held (paused) when every pin holding it is.
    static func isHeld(_ song: SongDownload, _ pins: [Pin]) -> Bool { isHeld(song.pins, pins) }

    static func isHeld(_ held: Set<Pin.ID>, _ pins: [Pin]) -> Bool {
        !held.isEmpty && pins.filter { held.contains($0.id) }.allSatisfy(\.paused)
    }

    /// Songs no pin holds: a running download is asked to stop (returned, to interrupt
    /// outside the lock), the bytes unpinned.
    static func dropUnpinned(_ state: inout State) -> [ReadInterrupt] {
        var stops: [ReadInterrupt] = []
        for uri in state.order {
            guard var song = state.songs[uri], song.pins.isEmpty else { continue }
            song.file?.setPinned(false)
            if song.requestStop() {
                state.songs[uri] = song
                if let stop = state.running[uri] { stops.append(stop) }
            } else {
                state.songs[uri] = nil
            }
        }
        state.order.removeAll { state.songs[$0] == nil }
        return stops
    }

    func save() { file.save(pins) }

    func wake() {
        wakeup.withLock {
            wakeups += 1
            wakeup.broadcast()
        }
    }

    /// Tells clients, once per batch: the first change since the last notice sends one, and
    /// what changes before it is delivered rides along. Progress alone sends one at most
    /// twice a second.
    func announce(progress: Bool = false) {
        if progress {
            let now = MonotonicClock.now()
            guard now &- lastProgressNotice.load(ordering: .relaxed) >= 500_000_000 else { return }
            lastProgressNotice.store(now, ordering: .relaxed)
        }
        guard !noticePending.exchange(true, ordering: .acquiringAndReleasing) else { return }
        Task { [self] in
            noticePending.store(false, ordering: .releasing)
            await notify()
        }
    }

    /// Describes the songs not described yet, on a worker thread (a listing the database
    /// did not cover may need the network).
    func resolveInBackground() {
        let pending = state.withLock { state in state.order.filter { state.songs[$0]?.file == nil && state.songs[$0]?.unresolvable == false } }
        guard !pending.isEmpty else { return }
        lookups.submit { [self] in
            for uri in pending {
                let file = storage.offlineFile(uri)
                state.withLock { state in
                    guard state.songs[uri] != nil, state.songs[uri]?.file == nil else { return }
                    if let file {
                        file.setPinned(true)
                        state.songs[uri]?.described(file)
                    } else {
                        state.songs[uri]?.notFound()
                    }
                }
            }
            announce()
            wake()
        }
    }
}
