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

/// One song kept offline, possibly by several pins.
struct SongDownload {
    let uri: String
    var pins: Set<Pin.ID>
    /// Nil until described (on a worker, never on the core loop).
    var file: OfflineFile?
    var unresolvable: String?
    var state: DownloadState = .queued
    var done: Int64 = 0
    /// Bytes per second, smoothed over the last few seconds.
    var speed: Double = 0
    var message: String?
    /// Seconds since 1970 of the next try after a failure.
    var retryAt: Int64?
    var attempts = 0
    /// Asks the worker running it to stop (pause, unpin, sign-out).
    var stop = false
    /// Its account signed out: it waits for a sign-in, not for a timer.
    var signedOut = false

    var total: Int64 { file?.size ?? 0 }

    init(uri: String, pins: Set<Pin.ID>) {
        self.uri = uri
        self.pins = pins
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
