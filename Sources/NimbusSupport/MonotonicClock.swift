import Glibc

/// Nanoseconds from CLOCK_MONOTONIC: cheap, never jumps with wall-clock changes.
public enum MonotonicClock {
    public static func now() -> UInt64 {
        var spec = timespec()
        clock_gettime(CLOCK_MONOTONIC, &spec)
        return UInt64(spec.tv_sec) * 1_000_000_000 + UInt64(spec.tv_nsec)
    }
}

extension Duration {
    /// Whole nanoseconds, saturating at zero for negative durations.
    public var nanoseconds: UInt64 {
        let (seconds, attoseconds) = components
        if seconds < 0 { return 0 }
        return UInt64(seconds) * 1_000_000_000 + UInt64(attoseconds / 1_000_000_000)
    }
}
