import CMpg123
import NimbusInput
import NimbusModel

/// WAV (RIFF/WAVE) read natively: the `fmt ` chunk gives the format, the `data` chunk the
/// length; tags come from LIST/INFO, or from an `id3 ` chunk when there is no INFO (MPD's
/// order of preference).
public struct WAVPlugin: DecoderPlugin {
    public let name = "wave"
    public let suffixes = ["wav", "wave"]
    public let mimeTypes = ["audio/wav", "audio/x-wav", "audio/wave"]

    public init() {}

    /// LIST/INFO ids in the order MPD (through libsndfile) reports them.
    private static let infoTags: [(String, TagType)] = [
        ("INAM", .title), ("IART", .artist), ("ICMT", .comment), ("ICRD", .date), ("IPRD", .album),
        ("ITRK", .track), ("IPRT", .track), ("IGNR", .genre),
    ]

    public func scan(_ stream: any InputStream, options: ScanOptions) throws(DecoderError) -> ScanResult {
        let layout = try RIFFLayout.read(stream)
        var result = ScanResult()
        result.format = layout.format.audioFormat
        var collector = TagCollector()
        if layout.format.blockAlign > 0, layout.format.sampleRate > 0 {
            let frames = UInt64(layout.dataLength) / UInt64(layout.format.blockAlign)
            collector.setDuration(frames: frames, rate: layout.format.sampleRate)
        }
        if !layout.info.isEmpty {
            for (id, type) in Self.infoTags {
                for (key, value) in layout.info where key == id { collector.add(type, value) }
            }
        } else if let id3 = layout.id3 {
            result.picture = ID3Tags.collect(fromTag: id3, into: &collector, wantPicture: options.picture)
        }
        result.tag = collector.tag
        return result
    }
}

/// The chunks of a RIFF/WAVE file that matter to Nimbus.
struct RIFFLayout {
    struct Format {
        var formatTag: UInt16 = 0
        var channels: UInt16 = 0
        var sampleRate: UInt32 = 0
        var blockAlign: UInt16 = 0
        var bitsPerSample: UInt16 = 0

        var audioFormat: AudioFormat? {
            guard sampleRate > 0, channels > 0 else { return nil }
            let sample: SampleFormat
            switch (formatTag, bitsPerSample) {
            case (3, 32): sample = .float
            case (_, 8): sample = .s8
            case (_, 16): sample = .s16
            case (_, 24): sample = .s24
            case (_, 32): sample = .s32
            default: return nil
            }
            return AudioFormat(sampleRate: sampleRate, sample: sample, channels: UInt8(clamping: channels))
        }
    }

    var format = Format()
    var dataOffset: Int64 = 0
    var dataLength: Int64 = 0
    var info: [(String, String)] = []
    var id3: [UInt8]?

    static func read(_ stream: any InputStream) throws(DecoderError) -> RIFFLayout {
        let header = try bytes(stream, at: 0, count: 12)
        guard header.count == 12, header[0..<4].elementsEqual("RIFF".utf8), header[8..<12].elementsEqual("WAVE".utf8) else {
            throw DecoderError("not a RIFF/WAVE file")
        }
        var layout = RIFFLayout()
        var offset: Int64 = 12
        var sawFormat = false
        while true {
            let chunk = try bytes(stream, at: offset, count: 8)
            guard chunk.count == 8 else { break }
            let id = String(decoding: chunk[0..<4], as: UTF8.self)
            let length = Int64(littleEndian32(chunk[4..<8]))
            let body = offset + 8
            switch id {
            case "fmt ":
                let data = try bytes(stream, at: body, count: Int(min(length, 64)))
                guard data.count >= 16 else { throw DecoderError("truncated fmt chunk") }
                layout.format.formatTag = UInt16(littleEndian16(data[0..<2]))
                layout.format.channels = UInt16(littleEndian16(data[2..<4]))
                layout.format.sampleRate = littleEndian32(data[4..<8])
                layout.format.blockAlign = UInt16(littleEndian16(data[12..<14]))
                layout.format.bitsPerSample = UInt16(littleEndian16(data[14..<16]))
                if layout.format.formatTag == 0xFFFE, data.count >= 26 {
                    layout.format.formatTag = UInt16(littleEndian16(data[24..<26]))
                }
                sawFormat = true
            case "data":
                layout.dataOffset = body
                layout.dataLength = min(length, max(0, (stream.size ?? Int64.max) - body))
            case "LIST":
                let data = try bytes(stream, at: body, count: Int(min(length, 1 << 20)))
                if data.count >= 4, data[0..<4].elementsEqual("INFO".utf8) { layout.info = parseInfo(data[4...]) }
            case "id3 ", "ID3 ":
                layout.id3 = try bytes(stream, at: body, count: Int(min(length, 16 << 20)))
            default:
                break
            }
            offset = body + length + (length & 1)
        }
        guard sawFormat, layout.format.audioFormat != nil else { throw DecoderError("unsupported WAV format") }
        return layout
    }

    private static func parseInfo(_ data: ArraySlice<UInt8>) -> [(String, String)] {
        var pairs: [(String, String)] = []
        var offset = data.startIndex
        while offset + 8 <= data.endIndex {
            let id = String(decoding: data[offset..<(offset + 4)], as: UTF8.self)
            let length = Int(littleEndian32(data[(offset + 4)..<(offset + 8)]))
            let start = offset + 8
            guard start + length <= data.endIndex else { break }
            let raw = data[start..<(start + length)]
            let end = raw.firstIndex(of: 0) ?? raw.endIndex
            pairs.append((id, String(decoding: raw[raw.startIndex..<end], as: UTF8.self)))
            offset = start + length + (length & 1)
        }
        return pairs
    }

    private static func bytes(_ stream: any InputStream, at offset: Int64, count: Int) throws(DecoderError) -> [UInt8] {
        do {
            return try stream.read(at: offset, count: count)
        } catch {
            throw DecoderError(error.message)
        }
    }

    static func littleEndian32(_ bytes: ArraySlice<UInt8>) -> UInt32 {
        bytes.reversed().reduce(0) { $0 << 8 | UInt32($1) }
    }

    static func littleEndian16(_ bytes: ArraySlice<UInt8>) -> UInt32 {
        bytes.reversed().reduce(0) { $0 << 8 | UInt32($1) }
    }
}

extension ID3Tags {
    /// Parses a bare ID3v2 tag (a WAV `id3 ` chunk) by feeding it to libmpg123, which parses
    /// tags it meets while looking for MPEG frames.
    static func collect(fromTag tag: [UInt8], into collector: inout TagCollector, wantPicture: Bool) -> Picture? {
        var error: Int32 = 0
        guard let handle = mpg123_new(nil, &error) else { return nil }
        defer { mpg123_delete(handle) }
        var flags = Int(MPG123_QUIET.rawValue | MPG123_STORE_RAW_ID3.rawValue)
        if wantPicture { flags |= Int(MPG123_PICTURE.rawValue) }
        mpg123_param2(handle, Int32(MPG123_ADD_FLAGS.rawValue), flags, 0)
        guard mpg123_open_feed(handle) == MPG123_OK.rawValue else { return nil }
        defer { mpg123_close(handle) }
        var output = [UInt8](repeating: 0, count: 4096)
        var done = 0
        _ = tag.withUnsafeBufferPointer { input in
            output.withUnsafeMutableBufferPointer { out in
                mpg123_decode(handle, input.baseAddress, input.count, out.baseAddress, out.count, &done)
            }
        }
        return collect(from: handle, into: &collector, wantPicture: wantPicture)
    }
}
