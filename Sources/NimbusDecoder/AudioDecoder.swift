import NimbusInput
import NimbusModel

/// A decoder pulled by the decoder thread: it fills a buffer with interleaved PCM in
/// `format` and can jump to a frame. It blocks on its input stream, so it only ever runs on
/// the decoder thread.
public protocol AudioDecoder: AnyObject {
    var format: AudioFormat { get }
    /// Exact length in frames, when known.
    var totalFrames: Int64? { get }
    /// Current bit rate in kbit/s (0 if unknown).
    var bitRate: Int { get }
    /// Writes whole frames into `buffer`; returns the number of frames, 0 at the end.
    func decode(into buffer: UnsafeMutableRawBufferPointer) throws(DecoderError) -> Int
    func seek(toFrame frame: Int64) throws(DecoderError)
    /// The stream's own tags as they change (radio); nil for files.
    var streamTags: StreamTags? { get }
    /// The song's MixRamp profile, when the player asked for it at opening.
    var mixRamp: MixRampTags? { get }
}

extension AudioDecoder {
    public var streamTags: StreamTags? { nil }
    public var mixRamp: MixRampTags? { nil }
}

extension DecoderRegistry {
    /// Opens a decoder for `stream`, chosen by the suffix of `path`, else by the stream's MIME
    /// type (a radio URL like `http://host:8000/stream` has no suffix, only `audio/mpeg`).
    public func openDecoder(for path: String, stream: any InputStream) throws(DecoderError) -> any AudioDecoder {
        guard let plugin = plugin(forPath: path) ?? stream.mimeType.flatMap(plugin(forMIMEType:)) else {
            throw DecoderError("No decoder for \"\(path)\"")
        }
        return try plugin.openDecoder(stream)
    }

    public func plugin(forMIMEType type: String) -> (any DecoderPlugin)? {
        let bare = String(type.prefix { $0 != ";" }.filter { $0 != " " }).lowercased()
        return plugins.first { $0.mimeTypes.contains(bare) }
    }
}
