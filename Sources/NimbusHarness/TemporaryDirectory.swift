import Synchronization
import Foundation

/// A fresh directory under /tmp removed when the value goes away.
public final class TemporaryDirectory {
    public let path: String

    public init(_ label: String = "nimbus-test") {
        let template = NSTemporaryDirectory() + "\(label).XXXXXX"
        var bytes = Array(template.utf8CString)
        let result = bytes.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
        precondition(result != nil, "mkdtemp failed")
        path = String(decoding: bytes.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }

    public func file(_ name: String) -> String { path + "/" + name }

    @discardableResult
    public func write(_ name: String, _ text: String) -> String {
        let target = file(name)
        try? FileManager.default.createDirectory(
            atPath: (target as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        _ = FileManager.default.createFile(atPath: target, contents: Data(text.utf8))
        return target
    }
}

/// An unused TCP port on 127.0.0.1 (bound then released, so a race is possible but unlikely).
public func freePort() -> Int {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    defer { close(fd) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    address.sin_port = 0
    _ = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
    }
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    _ = withUnsafeMutablePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
    }
    return Int(UInt16(bigEndian: address.sin_port))
}

/// Polls `condition` until true or the deadline passes; for waiting on a server to be ready.
public func waitUntil(timeout: Double = 10, _ condition: () -> Bool) -> Bool {
    let deadline = Date().addingTimeInterval(timeout)
    while Date() < deadline {
        if condition() { return true }
        usleep(5_000)
    }
    return condition()
}

/// A flag one thread sets and another polls (a callback that fired).
public final class LockedFlag: Sendable {
    private let value = Mutex(false)
    public init() {}
    public func set() { value.withLock { $0 = true } }
    public var isSet: Bool { value.withLock { $0 } }
}

/// A value several threads change and a test reads.
public final class LockedBox<Value: Sendable>: Sendable {
    private let stored: Mutex<Value>
    public init(_ value: Value) { stored = Mutex(value) }
    public func set(_ value: Value) { stored.withLock { $0 = value } }
    public func update(_ change: (inout Value) -> Void) { stored.withLock { change(&$0) } }
    public var value: Value { stored.withLock { $0 } }
}
