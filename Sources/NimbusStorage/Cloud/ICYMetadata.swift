/// Shoutcast/Icecast in-band metadata: after every `icy-metaint` bytes of audio comes one
/// length byte (×16) and that many bytes of `StreamTitle='…';StreamUrl='…';`. The parser
/// hands the audio on without them and reports each title.
public struct ICYParser: Sendable {
    public let interval: Int
    private var untilMetadata: Int
    /// Bytes of the metadata block still to read; nil while in audio.
    private var metadataLeft: Int?
    private var readingLength = false
    private var metadata: [UInt8] = []

    public init(interval: Int) {
        self.interval = interval
        untilMetadata = interval
    }

    /// Passes the audio of `chunk` to `audio` (false from it stops early) and each title to
    /// `title`; false when `audio` said stop.
    public mutating func feed(
        _ chunk: UnsafeRawBufferPointer, audio: (UnsafeRawBufferPointer) -> Bool, title: (String) -> Void
    ) -> Bool {
        var offset = 0
        while offset < chunk.count {
            if readingLength {
                readingLength = false
                let length = Int(chunk[offset]) * 16
                offset += 1
                if length == 0 {
                    untilMetadata = interval
                } else {
                    metadataLeft = length
                    metadata.removeAll(keepingCapacity: true)
                }
                continue
            }
            if let left = metadataLeft {
                let take = min(left, chunk.count - offset)
                metadata += chunk[offset..<(offset + take)]
                offset += take
                if take == left {
                    metadataLeft = nil
                    untilMetadata = interval
                    if let found = Self.streamTitle(metadata) { title(found) }
                } else {
                    metadataLeft = left - take
                }
                continue
            }
            let take = min(untilMetadata, chunk.count - offset)
            guard audio(UnsafeRawBufferPointer(rebasing: chunk[offset..<(offset + take)])) else { return false }
            offset += take
            untilMetadata -= take
            if untilMetadata == 0 { readingLength = true }
        }
        return true
    }

    /// The value of `StreamTitle='…';` (stations put `'` inside titles, so the value ends at
    /// the last `';` before the next field or the padding).
    static func streamTitle(_ block: [UInt8]) -> String? {
        let text = String(decoding: block.prefix { $0 != 0 }, as: UTF8.self)
        guard let start = text.range(of: "StreamTitle='") else { return nil }
        let rest = text[start.upperBound...]
        let end = rest.range(of: "';StreamUrl=")?.lowerBound ?? rest.range(of: "';", options: .backwards)?.lowerBound ?? rest.endIndex
        return String(rest[..<end])
    }
}
