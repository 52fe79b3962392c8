import NimbusDecoder
import NimbusInput
import NimbusModel

/// A song open for decoding: its decoder, the frame it is at and the frame it ends at, and
/// what the pipe was told of it so far. One way to open a song at a frame, for the song the
/// pipe plays, the follower opened for a crossfade and the song a skip fades out.
struct OpenSong {
    let item: PlayItem
    let decoder: any AudioDecoder
    /// The next frame the decoder gives, at the song's own rate.
    var frame: Int64
    /// Where the played range ends (`rangeid`), or where a seek past the end clamped it.
    var endFrame: Int64?
    /// No chunk of the song is in the pipe yet: the next one carries the outputs' song start.
    var firstChunk = true
    /// The stream tags last reported for the song (a radio's title).
    var reportedTags: StreamTags?

    var format: AudioFormat { decoder.format }
    /// The last frame to play, when known.
    var end: Int64? { endFrame ?? decoder.totalFrames }

    /// Opens `item` (may block on the network) and moves to the frame `target` picks for
    /// its format, by default the start of its range. A target at or past the last frame
    /// ends the song at once (libFLAC and libvorbisfile refuse such a seek; MPD clamps it to
    /// the end): nothing is left to decode.
    static func open(_ item: PlayItem, at target: ((AudioFormat) -> Int64)? = nil) throws -> OpenSong {
        let decoder = try item.open()
        let format = decoder.format
        let start = target?(format) ?? format.frames(milliseconds: item.startMilliseconds)
        var song = OpenSong(item: item, decoder: decoder, frame: start, endFrame: item.endMilliseconds.map(format.frames(milliseconds:)))
        if let total = decoder.totalFrames, start >= total {
            song.endFrame = min(song.endFrame ?? start, start)
        } else if start > 0 {
            try decoder.seek(toFrame: start)
        }
        return song
    }

    /// Decodes up to `limit` frames (and what `buffer` holds), never past the range end;
    /// does not move `frame` (the caller does once the frames are written). A failure comes
    /// with no frames: the song ends there.
    func decode(into buffer: inout [UInt8], limit: Int) -> (frames: Int, failure: String?) {
        let frameBytes = format.frameBytes
        var capacity = min(limit, buffer.count / frameBytes)
        if let endFrame { capacity = min(capacity, Int(max(0, endFrame - frame))) }
        guard capacity > 0 else { return (0, nil) }
        do {
            let frames = try buffer.withUnsafeMutableBytes { raw in
                try decoder.decode(into: UnsafeMutableRawBufferPointer(rebasing: raw[..<(capacity * frameBytes)]))
            }
            return (frames, nil)
        } catch {
            return (0, (error as? DecoderError)?.message ?? "\(error)")
        }
    }
}

extension PlayItem {
    /// The played part's length in seconds, when known (a crossfade needs songs of known length).
    var lengthSeconds: Double? { lengthMilliseconds.map { Double($0) / 1000 } }
}
