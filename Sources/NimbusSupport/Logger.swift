import Foundation
import Glibc
import Synchronization

/// Log severities in MPD's order; `log_level` accepts these names (and 0.21's aliases).
public enum LogLevel: Int, Comparable, Sendable, CaseIterable {
    case debug, info, notice, warning, error

    public static func < (lhs: LogLevel, rhs: LogLevel) -> Bool { lhs.rawValue < rhs.rawValue }

    /// MPD 0.23 accepts error, warning, notice, info, verbose, plus the old default/secure.
    public init?(configName: String) {
        switch configName {
        case "error": self = .error
        case "warning": self = .warning
        case "notice", "default": self = .notice
        case "info", "secure": self = .info
        case "verbose", "debug": self = .debug
        default: return nil
        }
    }
}

/// A thread-safe line logger. Libraries receive one rather than creating their own, so the
/// daemon decides where lines go (stderr, a file, syslog-like pipes) and tests can capture.
public final class Logger: Sendable {
    public typealias Sink = @Sendable (String) -> Void

    private let minimum: LogLevel
    private let sink: Sink
    private let domain: String

    public init(level: LogLevel = .notice, domain: String = "nimbus", sink: @escaping Sink) {
        self.minimum = level
        self.domain = domain
        self.sink = sink
    }

    /// A child logger writing to the same sink under another domain name (MPD's "client:", "update:").
    public func domain(_ name: String) -> Logger {
        Logger(level: minimum, domain: name, sink: sink)
    }

    public func isEnabled(_ level: LogLevel) -> Bool { level >= minimum }

    public func log(_ level: LogLevel, _ message: @autoclosure () -> String) {
        guard level >= minimum else { return }
        sink("\(domain): \(Redaction.withoutCredentials(message()))")
    }

    public func debug(_ message: @autoclosure () -> String) { log(.debug, message()) }
    public func info(_ message: @autoclosure () -> String) { log(.info, message()) }
    public func notice(_ message: @autoclosure () -> String) { log(.notice, message()) }
    public func warning(_ message: @autoclosure () -> String) { log(.warning, message()) }
    public func error(_ message: @autoclosure () -> String) { log(.error, message()) }

    /// Discards everything; for tests that do not care about log output.
    public static let silent = Logger(level: .error, sink: { _ in })
}

/// Writes timestamped lines to a file descriptor, serialised by a lock so lines never interleave.
public final class LogFile: Sendable {
    private let fd: Mutex<Int32>
    private let ownsDescriptor: Bool

    public static let standardError = LogFile(descriptor: 2)

    public init(descriptor: Int32) {
        self.fd = Mutex(descriptor)
        self.ownsDescriptor = false
    }

    public init(path: String) throws(SystemError) {
        let descriptor = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw SystemError("cannot open log file \"\(path)\"") }
        self.fd = Mutex(descriptor)
        self.ownsDescriptor = true
    }

    deinit {
        if ownsDescriptor { fd.withLock { _ = close($0) } }
    }

    public func write(_ line: String) {
        let text = Self.timestamp() + " : " + line + "\n"
        fd.withLock { descriptor in
            var bytes = Array(text.utf8)
            bytes.withUnsafeMutableBytes { raw in
                var offset = 0
                while offset < raw.count {
                    let written = Glibc.write(descriptor, raw.baseAddress! + offset, raw.count - offset)
                    if written <= 0 { break }
                    offset += written
                }
            }
        }
    }

    private static func timestamp() -> String {
        var now = time(nil)
        var parts = tm()
        localtime_r(&now, &parts)
        var buffer = [CChar](repeating: 0, count: 32)
        let length = strftime(&buffer, buffer.count, "%b %d %H:%M:%S", &parts)
        return String(decoding: buffer[..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
