import NimbusDecoder
import NimbusInput
import NimbusModel

/// A live stream's decoder, which also passes on what the station says of itself (its ICY
/// name and titles) for `currentsong`.
final class RadioDecoder: AudioDecoder {
    private let inner: any AudioDecoder
    private let stream: any InputStream

    init(_ inner: any AudioDecoder, stream: any InputStream) {
        self.inner = inner
        self.stream = stream
    }

    var format: AudioFormat { inner.format }
    var totalFrames: Int64? { inner.totalFrames }
    var bitRate: Int { inner.bitRate }
    var streamTags: StreamTags? { stream.streamTags }
    func decode(into buffer: UnsafeMutableRawBufferPointer) throws(DecoderError) -> Int { try inner.decode(into: buffer) }
    func seek(toFrame frame: Int64) throws(DecoderError) { try inner.seek(toFrame: frame) }
}
