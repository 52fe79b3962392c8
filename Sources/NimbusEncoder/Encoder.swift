import NimbusModel
import NimbusSupport

public typealias EncoderError = DomainError<EncoderDomain>
public enum EncoderDomain {}

/// Turns PCM (interleaved, in the format it was made for) into the bytes of a stream or a
/// file: the httpd output's endless stream, a transcode for a phone, and the outputs that
/// record or send to a server. A listener who joins a stream late gets `header` first, then
/// whatever `encode` returns from then on; each result is whole pages or frames, so it can be
/// dropped as a unit for a listener too slow to keep up.
public protocol Encoder: AnyObject {
    var contentType: String { get }
    var header: [UInt8] { get }
    func encode(_ pcm: UnsafeRawBufferPointer) throws(EncoderError) -> [UInt8]
    /// The end of the stream: whatever the encoder still holds.
    func finish() -> [UInt8]
    /// A file's exact length in bytes, known before its first byte (nil: not known).
    var exactLength: Int64? { get }
    /// After `finish`: bytes that belong at the file's start in place of what was sent there
    /// (an MP3's tag, once the real counts differ from the predicted ones); nil: none.
    var finalHeader: [UInt8]? { get }
}

extension Encoder {
    public var exactLength: Int64? { nil }
    public var finalHeader: [UInt8]? { nil }
}
