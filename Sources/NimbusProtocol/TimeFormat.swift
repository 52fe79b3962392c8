import Glibc

/// `2026-11-30T11:29:30Z`, MPD's Last-Modified format, without Foundation's formatters.
public enum TimeFormat {
    public static func iso8601(_ seconds: Int64) -> String {
        var time = time_t(seconds)
        var parts = tm()
        gmtime_r(&time, &parts)
        return "\(parts.tm_year + 1900)-\(two(parts.tm_mon + 1))-\(two(parts.tm_mday))T\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec))Z"
    }

    private static func two(_ value: Int32) -> String {
        value < 10 ? "0\(value)" : String(value)
    }
}
