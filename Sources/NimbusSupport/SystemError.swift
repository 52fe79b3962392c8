import Glibc

/// A failed system call, carrying errno and the call's name for the log and ACK text.
public struct SystemError: Error, CustomStringConvertible, Sendable {
    public let operation: String
    public let code: Int32

    public init(_ operation: String, code: Int32 = errno) {
        self.operation = operation
        self.code = code
    }

    public var message: String { String(cString: strerror(code)) }
    public var description: String { "\(operation): \(message)" }
}
