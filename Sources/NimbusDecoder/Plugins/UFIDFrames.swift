/// libmpg123 does not expose UFID frames, where MusicBrainz keeps its track id, so this
/// walks the raw ID3v2 tag mpg123 stored for us and picks them out.
enum UFIDFrames {
    static let musicBrainzOwner = Array("http://musicbrainz.org".utf8)

    static func musicBrainzTrackIDs(in tag: [UInt8]) -> [String] {
        var ids: [String] = []
        for (id, body) in ID3Frames.frames(in: tag) where id == "UFID" || id == "UFI" {
            if let nul = body.firstIndex(of: 0), body[body.startIndex..<nul].elementsEqual(musicBrainzOwner) {
                let identifier = body[(nul + 1)...]
                if !identifier.isEmpty { ids.append(String(decoding: identifier, as: UTF8.self)) }
            }
        }
        return ids
    }
}

/// The frames of a raw ID3v2 tag (v2.2, v2.3, v2.4), for the frames libmpg123 does not
/// expose; a frame whose size runs past the tag ends the walk.
enum ID3Frames {
    static func frames(in tag: [UInt8]) -> [(id: String, body: ArraySlice<UInt8>)] {
        guard tag.count >= 10, tag[0] == 0x49, tag[1] == 0x44, tag[2] == 0x33 else { return [] }
        let version = tag[3]
        let idLength = version == 2 ? 3 : 4
        let headerLength = version == 2 ? 6 : 10
        var offset = 10
        if version >= 3 && tag[5] & 0x40 != 0, tag.count >= 14 {
            // Extended header: its size field is synchsafe in v2.4 and excludes itself in v2.3.
            let size = version == 4 ? synchsafe(tag[10..<14]) : bigEndian(tag[10..<14]) + 4
            offset += size
        }
        var frames: [(id: String, body: ArraySlice<UInt8>)] = []
        while offset + headerLength <= tag.count, tag[offset] != 0 {
            let id = String(decoding: tag[offset..<(offset + idLength)], as: UTF8.self)
            let sizeBytes = tag[(offset + idLength)..<(offset + idLength + (version == 2 ? 3 : 4))]
            let size = version == 4 ? synchsafe(sizeBytes) : bigEndian(sizeBytes)
            let start = offset + headerLength
            guard size > 0, start + size <= tag.count else { break }
            frames.append((id, tag[start..<(start + size)]))
            offset = start + size
        }
        return frames
    }

    static func synchsafe(_ bytes: ArraySlice<UInt8>) -> Int {
        bytes.reduce(0) { $0 << 7 | Int($1 & 0x7F) }
    }

    static func bigEndian(_ bytes: ArraySlice<UInt8>) -> Int {
        bytes.reduce(0) { $0 << 8 | Int($1) }
    }
}
