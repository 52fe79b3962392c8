/// The layout LAME gives a constant-bit-rate MP3 of a known number of samples, and the
/// Xing/LAME "Info" tag frame that begins it — computed before the first byte is sent, so a
/// transcode streamed to a phone starts with the tag a gapless player needs (frames, bytes,
/// the seek table, the encoder delay and padding) instead of LAME's empty placeholder frame,
/// which every decoder played as 26 ms of extra silence. The rules are LAME 3.100's
/// (`VbrTag.c`, `lame_encode_flush`, the padding accumulator in `encoder.c`), checked sample
/// for sample against libmp3lame's own tag in `MP3InfoTagTests`.
struct MP3Layout: Equatable {
    let sampleRate: Int
    let channels: Int
    let kbps: Int

    /// LAME's encoder delay (`ENCDELAY`): samples before the song's first one.
    static let encoderDelay = 576
    /// The bytes of the Xing tag (with its 100-entry seek table) and of LAME's extension.
    static let xingBytes = 120
    static let lameBytes = 36

    var isMPEG1: Bool { sampleRate >= 32000 }
    var samplesPerFrame: Int { isMPEG1 ? 1152 : 576 }
    /// A frame's side information (no CRC): where the tag starts after the 4-byte header.
    var sideInfoBytes: Int { isMPEG1 ? (channels == 1 ? 17 : 32) : (channels == 1 ? 9 : 17) }
    var tagOffset: Int { 4 + sideInfoBytes }

    /// Bytes of one frame of this bit rate, with or without the padding byte.
    func frameBytes(padded: Bool) -> Int {
        (isMPEG1 ? 144_000 : 72_000) * kbps / sampleRate + (padded ? 1 : 0)
    }

    /// LAME leaves the tag out when it does not fit in a frame of the stream's bit rate.
    var hasTag: Bool { frameBytes(padded: false) >= 4 + sideInfoBytes + Self.xingBytes + Self.lameBytes }

    /// Samples LAME appends after the song's last so the last granule decodes whole: up to
    /// the next frame, and a frame more when that leaves less than a granule's overlap.
    func padding(samples: Int64) -> Int {
        let frame = Int64(samplesPerFrame)
        var padding = Int(frame - (samples + Int64(Self.encoderDelay)) % frame)
        if padding < Self.encoderDelay { padding += samplesPerFrame }
        return padding
    }

    /// Audio frames (the tag frame not counted), as `lame_get_frameNum` reports them.
    func audioFrames(samples: Int64) -> Int {
        Int((samples + Int64(Self.encoderDelay) + Int64(padding(samples: samples))) / Int64(samplesPerFrame))
    }

    /// Which audio frames carry the padding byte: none for the first, then LAME's slot
    /// accumulator (`frac_SpF`, `slot_lag`), so the average is the bit rate exactly.
    func paddedFrames(_ count: Int) -> [Bool] {
        let fraction = (isMPEG1 ? 144_000 : 72_000) * kbps % sampleRate
        var lag = 0
        return (0..<count).map { index in
            guard index > 0 else { return false }
            lag -= fraction
            guard lag < 0 else { return false }
            lag += sampleRate
            return true
        }
    }

    /// The whole file's bytes: the tag frame (when there is one) and every audio frame.
    func totalBytes(samples: Int64) -> Int64 {
        let frames = audioFrames(samples: samples)
        let padded = paddedFrames(frames).reduce(0) { $0 + ($1 ? 1 : 0) }
        return Int64((hasTag ? frameBytes(padded: false) : 0) + frames * frameBytes(padded: false) + padded)
    }

    /// The seek table as LAME builds it (`addVbr`, `Xing_seek_table`): every frame's bit rate
    /// summed into a bag of at most 400 points that halves when full, read at each percent.
    func seekTable(frames: Int) -> [UInt8] {
        var bag = [Int](repeating: 0, count: 400)
        var position = 0, want = 1, seen = 0, sum = 0
        for _ in 0..<frames {
            sum += kbps
            seen += 1
            guard seen >= want else { continue }
            if position < bag.count {
                bag[position] = sum
                position += 1
                seen = 0
            }
            if position == bag.count {
                for index in stride(from: 1, to: bag.count, by: 2) { bag[index / 2] = bag[index] }
                want *= 2
                position /= 2
            }
        }
        var table = [UInt8](repeating: 0, count: 100)
        guard position > 0 else { return table }
        for index in 1..<100 {
            // LAME computes the index in single precision and the point in double.
            let fraction = Float(index) / Float(100)
            let at = min(Int((fraction * Float(position)).rounded(.down)), position - 1)
            let point = Int(256 * Double(Float(bag[at])) / Double(Float(sum)))
            table[index] = UInt8(min(point, 255))
        }
        return table
    }

    /// The tag frame for `samples`, from a `template` — a tag frame LAME itself wrote with the
    /// same settings, whose header, encoder name, quality, low-pass and flags are kept — with
    /// the frame count, the byte count, the seek table, the padding and the checksum filled in.
    /// Two things LAME only knows at the end are left as its placeholder has them: the music
    /// checksum (0; no player checks it) and the header's mode extension, which LAME copies
    /// from the last frame it encoded and which means nothing in a frame without audio.
    func tagFrame(samples: Int64, template: [UInt8]) -> [UInt8]? {
        let xing = tagOffset, lame = tagOffset + Self.xingBytes
        guard hasTag, template.count == frameBytes(padded: false), template.count >= lame + Self.lameBytes else { return nil }
        var frame = template
        frame[3] &= ~0x30
        let frames = audioFrames(samples: samples), total = totalBytes(samples: samples)
        func put(_ value: Int, at offset: Int, bytes: Int) {
            for index in 0..<bytes { frame[offset + index] = UInt8(truncatingIfNeeded: value >> (8 * (bytes - 1 - index))) }
        }
        put(frames, at: xing + 8, bytes: 4)
        put(Int(total), at: xing + 12, bytes: 4)
        frame.replaceSubrange((xing + 16)..<(xing + 116), with: seekTable(frames: frames))
        put(Self.encoderDelay << 12 | padding(samples: samples), at: lame + 21, bytes: 3)
        put(Int(total), at: lame + 28, bytes: 4)
        put(0, at: lame + 32, bytes: 2)
        put(Int(Self.crc16(frame[0..<(lame + 34)])), at: lame + 34, bytes: 2)
        return frame
    }

    /// CRC-16/ARC (polynomial 0x8005, reflected), LAME's checksum of its tag and of the music.
    static func crc16(_ bytes: ArraySlice<UInt8>) -> UInt16 {
        var crc: UInt16 = 0
        for byte in bytes {
            crc ^= UInt16(byte)
            for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xA001 : crc >> 1 }
        }
        return crc
    }
}
