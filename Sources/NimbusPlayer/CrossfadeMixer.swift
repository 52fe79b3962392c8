import NimbusDecoder
import NimbusModel
import NimbusPCM

/// Mixes two songs into the chunks of one: the end of a song with the start of its follower
/// (a crossfade or a MixRamp join), or a skip's new song with the song it left. The outputs
/// see one continuous stream in one format and nothing downstream knows about fades. A
/// follower in another format is converted to the outgoing song's format, and stays
/// converted until it ends, so no output reopens in the middle of a song.
///
/// It decides nothing about *when* to fade (DecoderWorker+Crossfade does, with MPD's
/// rules); it is given the songs and gives mixed chunks, so it is tested with fake decoders.
/// Decoder thread only.
final class CrossfadeMixer {
    /// The follower, opened ahead of the end of the current song so the two can overlap.
    struct Follower {
        let source: FadeSource
        /// Frames of the outgoing song (at its own rate) the overlap lasts.
        let overlapFrames: Int64
        let additive: Bool
    }

    /// An overlap in progress, counted in chunk frames.
    struct Fade {
        var curve: FadeCurve
        var position = 0
        /// The current song fades in (a skip's new song, or a follower whose outgoing song
        /// ended early); otherwise it fades out under `other`.
        let currentFadesIn: Bool
        /// The song mixed against the current one (nil: a fade-in finishing on its own).
        var other: FadeSource?
    }

    /// A chunk the mixer made, in `encoded` (the pipe's format, `format`).
    struct Chunk {
        let startFrame: Int64
        let frames: Int
    }

    /// The format of the current song's chunks: its own, or the one it faded in under.
    private(set) var format = AudioFormat(sampleRate: 44100, sample: .s16, channels: 2)
    /// The current song plays on converted: it faded in under a song of another format.
    private(set) var converted: FadeSource?
    /// Where a converted song's chunks are, in frames at the pipe's rate.
    private var convertedFrame: Int64 = 0
    private(set) var follower: Follower?
    private(set) var fade: Fade?
    private(set) var encoded: [UInt8] = []
    private var floats: [Float] = []
    /// The mix is cut back to the pipe's format: dithered when that is 16 bits or fewer.
    private var dither = Dither()
    private var other: [Float] = []

    /// How a follower in another format is brought to this one (the configured resampler).
    private let rates: RateConversion

    init(rates: RateConversion = .standard) { self.rates = rates }

    /// Chunks must go through the mixer (a fade, or a song played converted).
    var isMixing: Bool { converted != nil || fade != nil }

    /// The current song was opened anew (a fresh song, or reopened after an interrupted
    /// read): its chunks are in its own format again.
    func playDirect(_ format: AudioFormat) {
        converted = nil
        self.format = format
    }

    /// Forgets the follower and every fade; the current song (`format`, its own) plays on.
    func dropAll(currentFormat: AudioFormat?) {
        follower = nil
        fade = nil
        if converted != nil {
            converted = nil
            if let currentFormat { format = currentFormat }
        }
    }

    /// The follower is no longer wanted: whatever of it was mixed in stays, and the current
    /// song stops fading out and plays on.
    func dropFollower() {
        follower = nil
        if fade?.currentFadesIn == false { fade = nil }
    }

    /// `song`'s follower opened ahead of its end, to overlap its last `overlapFrames`.
    func admit(_ next: OpenSong, overlapFrames: Int64, additive: Bool) {
        let source = FadeSource(next, mixRate: format.sampleRate, mixChannels: format.channels, rates: rates)
        follower = Follower(source: source, overlapFrames: overlapFrames, additive: additive)
    }

    /// A skip: `leaving`, opened where it was heard, fades out over `seconds` under the
    /// current song, which fades in.
    func fadeOut(_ leaving: OpenSong, seconds: Double) {
        let source = FadeSource(leaving, mixRate: format.sampleRate, mixChannels: format.channels, rates: rates)
        fade = Fade(curve: FadeCurve(frames: Int(seconds * Double(format.sampleRate)), additive: false), currentFadesIn: true, other: source)
    }

    /// Starts the overlap once `song` is within the follower's overlap of its end.
    func beginOverlapIfDue(_ song: OpenSong) {
        guard let follower, fade == nil, let end = song.end, end - song.frame <= follower.overlapFrames else { return }
        let frames = Int(Double(max(0, end - song.frame)) * Double(format.sampleRate) / Double(song.format.sampleRate))
        fade = Fade(curve: FadeCurve(frames: frames, additive: follower.additive), currentFadesIn: false, other: follower.source)
    }

    /// How many frames of `song` may be decoded before the overlap must begin.
    func framesBeforeOverlap(_ song: OpenSong) -> Int {
        guard let follower, fade == nil, let end = song.end else { return Int.max }
        return Int(max(1, end - song.frame - follower.overlapFrames))
    }

    /// One chunk of `song` through floats (converted, when it plays `converted`), mixed with
    /// the song fading against it, into `encoded`. Nil with a failure, or nil and nil when
    /// the song has nothing more; the caller writes the chunk and then calls `advance`.
    func mix(_ song: inout OpenSong, buffer: inout [UInt8]) -> (chunk: Chunk?, failure: String?) {
        let channels = Int(format.channels)
        let chunkFrames = MusicPipe.chunkBytes / max(format.frameBytes, 4 * channels)
        floats.removeAll(keepingCapacity: true)
        var frames = 0
        var failure: String?
        let startFrame: Int64
        if let converted {
            startFrame = convertedFrame
            var wanted = chunkFrames
            let before = framesBeforeOverlap(song)
            if before != Int.max {
                wanted = min(wanted, max(1, Int(Double(before) * Double(format.sampleRate) / Double(song.format.sampleRate))))
            }
            frames = converted.read(frames: wanted, into: &floats, padding: false)
            song.frame = converted.song.frame
            if frames == 0 { failure = converted.failure }
        } else {
            startFrame = song.frame
            (frames, failure) = song.decode(into: &buffer, limit: min(chunkFrames, framesBeforeOverlap(song)))
            if frames > 0 {
                // The direct path's format is the pipe's: only the sample type changes.
                let songFormat = song.format
                buffer.withUnsafeBytes { raw in
                    PCMConverter.toFloat(
                        UnsafeRawBufferPointer(rebasing: raw[..<(frames * songFormat.frameBytes)]), format: songFormat, frames: frames,
                        into: &floats)
                }
            }
        }
        guard frames > 0 else { return (nil, failure) }
        applyFade(frames: frames, channels: channels)
        encode()
        return (Chunk(startFrame: startFrame, frames: frames), nil)
    }

    /// The chunk `mix` made was written: the song moves on.
    func advance(_ song: inout OpenSong, by chunk: Chunk) {
        if converted != nil { convertedFrame += Int64(chunk.frames) } else { song.frame += Int64(chunk.frames) }
    }

    /// Scales `floats` (the current song) and adds the other song, along the fade's curve.
    private func applyFade(frames: Int, channels: Int) {
        guard var fade else { return }
        let curve = fade.curve
        if let source = fade.other {
            other.removeAll(keepingCapacity: true)
            source.read(frames: frames, into: &other, padding: true)
        }
        let mixesOther = fade.other != nil
        var gains = curve.gains(from: fade.position)
        floats.withUnsafeMutableBufferPointer { own in
            other.withUnsafeBufferPointer { other in
                for index in 0..<frames {
                    let (fadingIn, fadingOut) = gains.next()
                    let ownGain = fade.currentFadesIn ? fadingIn : fadingOut
                    let otherGain = fade.currentFadesIn ? fadingOut : fadingIn
                    let base = index * channels
                    for channel in base..<(base + channels) {
                        own[channel] = mixesOther ? own[channel] * ownGain + other[channel] * otherGain : own[channel] * ownGain
                    }
                }
            }
        }
        fade.position += frames
        // A fade-in is over at its end; a fade-out lasts until its song ends (silent by then).
        self.fade = fade.currentFadesIn && fade.position >= curve.frames ? nil : fade
    }

    private func encode() {
        encoded.removeAll(keepingCapacity: true)
        withUnsafeMutablePointer(to: &dither) { PCMConverter.fromFloat(floats, format: format, into: &encoded, dither: $0) }
    }

    /// The outgoing song ended: its follower becomes the current song, finishing its fade-in
    /// if the outgoing song ended early, and playing directly again when its own format is
    /// the pipe's. Returns it, and a chunk of what it had converted ahead (in `encoded`).
    func handOver() -> (song: OpenSong, leftover: Chunk?)? {
        guard let follower else { return nil }
        self.follower = nil
        let source = follower.source
        let faded = fade
        fade = nil
        var song = source.song
        song.firstChunk = true
        song.reportedTags = nil
        guard let faded, faded.other != nil else {
            // The outgoing song ended before the overlap began: a plain join.
            converted = nil
            format = song.format
            return (song, nil)
        }
        if faded.position < faded.curve.frames {
            fade = Fade(curve: faded.curve, position: faded.position, currentFadesIn: true, other: nil)
        }
        convertedFrame = format.frames(milliseconds: song.item.startMilliseconds) + Int64(faded.position)
        guard song.format == format, fade == nil else {
            converted = source
            return (song, nil)
        }
        converted = nil
        let leftover = source.takePending()
        guard !leftover.isEmpty else { return (song, nil) }
        floats = leftover
        encode()
        let frames = leftover.count / Int(format.channels)
        return (song, Chunk(startFrame: song.frame - Int64(frames), frames: frames))
    }
}
