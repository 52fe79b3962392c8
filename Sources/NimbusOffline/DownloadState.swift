import NimbusStorage

/// Where one song of a pin stands.
public enum DownloadState: String, Sendable {
    case queued
    case downloading
    case completed
    case paused
    case failed
    case waitingForSpace = "waiting for space"
}

/// One song kept offline, possibly by several pins: a state machine whose state changes only
/// through the transitions below, each named for what happened, so every path is tested on
/// its own (SongDownloadTests). The download threads and the commands call them under the
/// downloads' lock; none blocks.
struct SongDownload {
    let uri: String
    var pins: Set<Pin.ID>
    /// Nil until described (on a worker, never on the core loop).
    private(set) var file: OfflineFile?
    private(set) var state: DownloadState
    private(set) var done: Int64 = 0
    /// Bytes per second, smoothed over the last few seconds.
    private(set) var speed: Double = 0
    private(set) var message: String?
    /// Seconds since 1970 of the next try after a failure.
    private(set) var retryAt: Int64?
    private(set) var attempts = 0
    /// The worker running it was asked to stop (pause, unpin, sign-out, shutdown).
    private(set) var stopRequested = false
    /// Its account signed out: it waits for a sign-in, not for a timer.
    private(set) var signedOut = false
    /// Not found on its account: only a retry looks again.
    private(set) var unresolvable = false

    var total: Int64 { file?.size ?? 0 }

    init(uri: String, pins: Set<Pin.ID>, held: Bool) {
        self.uri = uri
        self.pins = pins
        state = held ? .paused : .queued
    }

    // MARK: describing

    /// Its file was found on its account; what is on disk of it already counts.
    mutating func described(_ file: OfflineFile) {
        self.file = file
        done = file.storedBytes
    }

    /// A paused song stays paused (the lookup runs in the background and may come back
    /// after the pause); it fails when its pin is resumed.
    mutating func notFound() {
        unresolvable = true
        if state != .paused { state = .failed }
        message = "not found on its cloud account"
    }

    // MARK: the download threads

    /// Whether a download thread may start it now.
    func isDue(now: Int64) -> Bool {
        guard file != nil else { return false }
        switch state {
        case .queued, .waitingForSpace: return true
        case .failed: return !signedOut && !unresolvable && (retryAt.map { $0 <= now } ?? false)
        case .downloading, .completed, .paused: return false
        }
    }

    /// It does not fit (the cache budget or the disk); false when it already waited for that.
    mutating func waitForSpace(_ why: String) -> Bool {
        guard state != .waitingForSpace || message != why else { return false }
        state = .waitingForSpace
        message = why
        return true
    }

    mutating func start() {
        state = .downloading
        stopRequested = false
        message = nil
        retryAt = nil
    }

    /// Bytes on disk grew (a rate when enough time passed to measure one); false when
    /// nothing a client sees changed.
    mutating func progressed(to bytes: Int64, rate: Double?) -> Bool {
        guard done != bytes || rate != nil else { return false }
        done = bytes
        if let rate { speed = speed == 0 ? rate : speed * 0.6 + rate * 0.4 }
        return true
    }

    mutating func completed() {
        state = .completed
        done = total
        speed = 0
        attempts = 0
        message = nil
        stopRequested = false
    }

    /// The transfer failed: tried again after 15 s, doubling up to ten minutes. Returns the
    /// delay in seconds.
    mutating func failed(_ why: String, now: Int64) -> Int64 {
        attempts += 1
        state = .failed
        message = why
        speed = 0
        stopRequested = false
        let delay = Int64(min(15 << min(attempts - 1, 6), 600))
        retryAt = now + delay
        return delay
    }

    /// The worker stopped as asked: held by its pins, or back in the queue (an unpin or a
    /// shutdown drops it anyway).
    mutating func stopped(held: Bool) {
        state = held ? .paused : .queued
        speed = 0
        stopRequested = false
    }

    // MARK: commands

    /// Asks the worker running it to stop; true when one runs it.
    mutating func requestStop() -> Bool {
        guard state == .downloading else { return false }
        stopRequested = true
        return true
    }

    /// Every pin holding it was paused.
    mutating func hold() {
        speed = 0
        if state == .downloading { stopRequested = true }
        if [.queued, .waitingForSpace, .failed].contains(state) { state = .paused }
    }

    /// A pin holding it was resumed.
    mutating func release() {
        speed = 0
        if state == .paused { state = unresolvable ? .failed : .queued }
    }

    /// `offlineretry`: a failed song, or one waiting for space, is tried again now.
    mutating func retryNow() {
        guard state == .failed || state == .waitingForSpace else { return }
        state = .queued
        retryAt = nil
        attempts = 0
        if unresolvable {
            unresolvable = false
            message = nil
        }
    }

    // MARK: the account

    /// Its account signed out (the download manager's rule): a download in progress is
    /// asked to stop (`stoppedSignedOut` follows), a queued, paused or failed one waits for
    /// a sign-in and its partial bytes go; a completed song stays and plays. Returns whether
    /// its bytes must be dropped now.
    mutating func signOut(account: String) -> Bool {
        guard state != .completed, !signedOut else { return false }
        if state == .downloading {
            stopRequested = true
            return false
        }
        let partial = done > 0
        markSignedOut(account)
        return partial
    }

    /// The worker stopped (or failed) because the account signed out: its bytes go.
    mutating func stoppedSignedOut(account: String) {
        markSignedOut(account)
        stopRequested = false
    }

    private mutating func markSignedOut(_ account: String) {
        signedOut = true
        state = .failed
        message = "sign-in needed — run: nimbus authorize \(account)"
        speed = 0
        done = 0
    }

    /// Its account is signed in again: it goes back in the queue (or stays held).
    mutating func signIn(held: Bool) -> Bool {
        guard signedOut else { return false }
        signedOut = false
        state = held ? .paused : .queued
        message = nil
        return true
    }
}

/// A pin with the totals of its songs, for `listpins`.
public struct PinReport: Sendable {
    public let pin: Pin
    public let state: DownloadState
    public let songs: Int
    public let completed: Int
    public let bytes: Int64
    public let done: Int64
    public let speed: Int64
    /// Seconds left at the current speed, while downloading.
    public let eta: Int64?
    public let message: String?
}

/// One song of the pins, for `pinstatus`.
public struct SongReport: Sendable {
    public let uri: String
    public let state: DownloadState
    public let done: Int64
    public let bytes: Int64
    public let speed: Int64
    public let message: String?
    public let retryAt: Int64?
}

public struct OfflineError: Error, Sendable {
    public enum Kind: Sendable { case noSuchPin, configured }
    public let kind: Kind
    public let message: String
}
