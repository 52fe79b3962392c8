/// MPD's ACK error codes (src/protocol/Ack.hxx), the numbers clients switch on.
public enum AckCode: Int, Sendable {
    case notList = 1
    case argument = 2
    case password = 3
    case permission = 4
    case unknown = 5
    case noExist = 50
    case playlistMax = 51
    case system = 52
    case playlistLoad = 53
    case updateAlready = 54
    case playerSync = 55
    case exist = 56
}

/// A command failure as the client will see it: `ACK [code@index] {command} message`.
public struct ProtocolError: Error, Equatable, Sendable, CustomStringConvertible {
    public let code: AckCode
    public let message: String

    public init(_ code: AckCode, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { "[\(code.rawValue)] \(message)" }

    public static func argument(_ message: String) -> ProtocolError { ProtocolError(.argument, message) }
}
