import Glibc

/// Where a daemon thread ranks against the core loop, which answers every client. On Linux
/// the nice value belongs to a thread, not the process (`setpriority(PRIO_PROCESS, 0, …)`
/// names the calling thread), so each thread sets its own on entry.
///
/// Why it matters: the scheduler lets a woken thread that has slept a while run before the
/// one that woke it. When `play` woke the decoder at the same priority as the core loop, a
/// daemon confined to one core answered the idle clients only after the decoder's first
/// burst: a wake-up p99 of 3–4 ms. A little below the core loop it is 0.3–0.8 ms, and the
/// decoder still gets a quarter of a busy core, many times what decoding and resampling a
/// song in real time costs.
public enum ThreadPriority: Int32, Sendable {
    /// The decoder: ahead of background work, behind the core loop.
    case playback = 5
    /// Library scans and transcoding for phones: whatever the box has left.
    case background = 10

    /// Applies this priority to the calling thread; false if the system refused (a
    /// container without the right to lower its own priority never refuses, but a
    /// seccomp profile might).
    @discardableResult
    public func applyToCurrentThread() -> Bool {
        setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, rawValue) == 0
    }

    /// The calling thread's nice value (for tests and the log).
    public static var currentNice: Int32 {
        errno = 0
        return getpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0)
    }
}
