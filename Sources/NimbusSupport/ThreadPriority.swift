import CLinux
import Glibc

/// Where a daemon thread ranks against the core loop, which answers every client. On Linux
/// the nice value and the time slice belong to a thread, not the process, so each thread sets
/// its own on entry.
///
/// Why it matters: the scheduler lets a thread that slept a while run before the one that
/// woke it, and lets a running thread finish its slice before a woken one gets the core.
/// When `play` woke the decoder at the core loop's own priority, a daemon confined to one
/// core answered the idle clients only after the decoder's first burst (a wake-up p99 of
/// 3–4 ms), and a command that arrived during a burst waited for it. So the core loop runs
/// with a short slice (on Linux 6.12's EEVDF scheduler a thread with a shorter slice preempts
/// one with a longer; older kernels ignore it), the decoder a little below it (it still gets
/// a quarter of a busy core, many times what decoding and resampling in real time cost), and
/// background work below both.
public enum ThreadPriority: Sendable {
    /// The core loop: the process's own nice value, a slice of 0.1 ms (the scheduler's
    /// minimum): it is woken by every client's line and gives the core back after each
    /// answer anyway.
    case answering
    /// The decoder: nice +5, ahead of background work, behind the core loop.
    case playback
    /// Library scans and transcoding for phones (+10): whatever the box has left.
    case background

    /// Added to the nice value the thread started with (the process's, from its service
    /// file or `nice`), so a box that starts the daemon at another priority keeps the order.
    public var niceOffset: Int32 {
        switch self {
        case .answering: 0
        case .playback: 5
        case .background: 10
        }
    }

    /// The slice asked for, in nanoseconds (0: the scheduler's default).
    public var slice: UInt64 {
        self == .answering ? 100_000 : 0
    }

    /// Applies this priority to the calling thread; false if the system refused (a seccomp
    /// profile might; lowering one's own priority is otherwise always allowed). The core
    /// loop's short slice is its own: threads it starts (the decoder on the first `play`)
    /// begin with the defaults.
    @discardableResult
    public func applyToCurrentThread() -> Bool {
        let nice = min(19, Self.currentNice + niceOffset)
        if clinux_set_thread_slice(nice, slice, self == .answering ? 1 : 0) == 0 { return true }
        // A kernel or sandbox without sched_setattr still takes the nice value.
        return slice == 0 && setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, nice) == 0
    }

    /// The calling thread's nice value (for tests and the log).
    public static var currentNice: Int32 {
        errno = 0
        return getpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0)
    }

    /// The calling thread's slice in nanoseconds as the kernel reports it (nil if it cannot).
    public static var currentSlice: UInt64? {
        let slice = clinux_thread_slice()
        return slice < 0 ? nil : UInt64(slice)
    }
}
