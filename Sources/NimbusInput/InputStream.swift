import NimbusSupport
/// A blocking, seekable byte source: a local file, or a cloud file behind the range cache.
/// Decoders and tag readers see only this, so the same code indexes and plays both.
///
/// An instance belongs to one thread at a time (a decoder or an update worker); reads may
/// block, which is why none of this runs on the core loop or the cooperative pool.
public protocol InputStream: AnyObject {
    var uri: String { get }
    /// Total length, when known.
    var size: Int64? { get }
    var position: Int64 { get }
    var isSeekable: Bool { get }
    var mimeType: String? { get }

    /// Reads up to `buffer.count` bytes at the current position; 0 means end of stream.
    func read(into buffer: UnsafeMutableRawBufferPointer) throws(InputError) -> Int
    func seek(to offset: Int64) throws(InputError)
    /// What a radio stream says of itself (ICY); nil for files.
    var streamTags: StreamTags? { get }
    /// Reached over a network (a cloud file, a URL): a decoder then seeks by byte offset where
    /// it can instead of reading everything before the target.
    var isRemote: Bool { get }
    /// Asks for `range` to be brought in the background, at the reader's priority, without
    /// waiting (a tag scanner keeping what a player will read first); a no-op for local files.
    func prefetch(_ range: Range<Int64>)
    /// Makes sure the bytes about to be played are of the current version (a cached remote
    /// file asks its server when it has not for a while); a no-op for other streams.
    func confirmFreshness() throws(InputError)
    /// A descriptor of its own (the caller closes it) when the stream is a local file read as
    /// it lies on disk, so a server can hand its bytes to a socket with sendfile(2); nil for
    /// every other stream.
    func duplicateFileDescriptor() -> Int32?
}

/// A radio station's `icy-name` and the `StreamTitle` it sends while it plays.
public struct StreamTags: Sendable, Equatable {
    public var name: String?
    public var title: String?

    public init(name: String? = nil, title: String? = nil) {
        self.name = name
        self.title = title
    }
}

/// Why a stream could not deliver: the message is what the log and `error:` show.
public typealias InputError = DomainError<InputStreamDomain>
public enum InputStreamDomain {}

extension InputStream {
    public var streamTags: StreamTags? { nil }
    public func confirmFreshness() throws(InputError) {}
    public var isRemote: Bool { false }
    public func prefetch(_ range: Range<Int64>) {}
    public func duplicateFileDescriptor() -> Int32? { nil }

    /// Reads until `count` bytes or end of stream.
    public func read(count: Int) throws(InputError) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count)
        var filled = 0
        var failure: InputError?
        bytes.withUnsafeMutableBytes { raw in
            while filled < count {
                do throws(InputError) {
                    let got = try read(into: UnsafeMutableRawBufferPointer(rebasing: raw[filled...]))
                    if got == 0 { return }
                    filled += got
                } catch {
                    failure = error
                    return
                }
            }
        }
        if let failure { throw failure }
        bytes.removeLast(count - filled)
        return bytes
    }

    /// `count` bytes at `offset` (fewer at end of stream); leaves the position after them.
    public func read(at offset: Int64, count: Int) throws(InputError) -> [UInt8] {
        try seek(to: offset)
        return try read(count: count)
    }

    /// Everything from the current position to the end (tag blocks, pictures).
    public func readToEnd(limit: Int = 64 << 20) throws(InputError) -> [UInt8] {
        var result: [UInt8] = []
        while result.count < limit {
            let chunk = try read(count: min(65536, limit - result.count))
            if chunk.isEmpty { break }
            result += chunk
        }
        return result
    }
}
