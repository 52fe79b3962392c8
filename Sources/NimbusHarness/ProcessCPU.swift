import Glibc

/// Seconds of CPU a process has used, threads that have ended included (utime + stime of
/// /proc/PID/stat): transcoding workers come and go, so summing live threads would miss them.
/// Used by the bench and by tests that check a daemon stays quiet.
public func processCPUSeconds(_ pid: Int32) -> Double {
    guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8), let close = stat.lastIndex(of: ")") else { return 0 }
    let fields = stat[stat.index(after: close)...].split(separator: " ")
    // utime and stime are fields 14 and 15 of stat(5); the 12th and 13th after the name.
    guard fields.count > 12 else { return 0 }
    return ((Double(fields[11]) ?? 0) + (Double(fields[12]) ?? 0)) / Double(sysconf(Int32(_SC_CLK_TCK)))
}
