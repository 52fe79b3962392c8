import Foundation

/// The FLAC PICTURE block layout, also carried base64-encoded in Vorbis comments as
/// METADATA_BLOCK_PICTURE.
enum FLACPictureBlock {
    static func parse(base64: String) -> Picture? {
        guard let data = Data(base64Encoded: base64, options: .ignoreUnknownCharacters) else { return nil }
        return parse(Array(data))
    }

    static func parse(_ bytes: [UInt8]) -> Picture? {
        var reader = BigEndianReader(bytes)
        guard reader.u32() != nil, let mimeLength = reader.u32(), let mime = reader.bytes(Int(mimeLength)),
            let descriptionLength = reader.u32(), reader.bytes(Int(descriptionLength)) != nil,
            reader.bytes(16) != nil, let dataLength = reader.u32(), let data = reader.bytes(Int(dataLength))
        else { return nil }
        return Picture(mimeType: mime.isEmpty ? nil : String(decoding: mime, as: UTF8.self), data: data)
    }
}

/// Sequential big-endian field reading over a byte array, failing softly at the end.
struct BigEndianReader {
    private let bytes: [UInt8]
    private(set) var offset = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    mutating func u32() -> UInt32? {
        guard let raw = self.bytes(4) else { return nil }
        return raw.reduce(0) { $0 << 8 | UInt32($1) }
    }

    mutating func bytes(_ count: Int) -> [UInt8]? {
        guard count >= 0, offset + count <= bytes.count else { return nil }
        defer { offset += count }
        return Array(bytes[offset..<(offset + count)])
    }
}
