/// The one shape of an error that is only a sentence for the log, `error:` or an ACK line.
/// Each layer names its own `Domain`, so `catch let error as InputError` still tells a
/// decoder's failure from a stream's, without each layer repeating the same struct.
public struct DomainError<Domain>: Error, CustomStringConvertible, Sendable, Equatable {
    public let message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}
