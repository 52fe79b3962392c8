import NimbusDecoder
import NimbusModel
import NimbusOutput

/// The follower opened ahead of a song's end so the two can overlap.
struct Incoming {
    let source: FadeSource
    /// Frames of the outgoing song (at its own rate) the overlap lasts.
    let overlapFrames: Int64
    let additive: Bool
}

/// An overlap in progress, counted in chunk frames.
struct Fade {
    var curve: FadeCurve
    var position = 0
    /// The pipe's song fades in (a skip's new song, or a follower whose outgoing song ended
    /// early); otherwise it fades out under `secondary`.
    let primaryFadesIn: Bool
    var secondary: FadeSource?
}

/// Crossfading on the decoder thread: the end of a song and the start of its follower are
/// decoded side by side and mixed into the chunks of the outgoing song, so the outputs see
/// one continuous stream in one format and nothing downstream knows about fades. A follower
/// in another format is converted to the outgoing song's format, and stays converted until
/// it ends, so no output reopens in the middle of a song.
extension DecoderWorker {
    /// Opens the follower once the end is near enough, and starts the overlap when it is due.
    func prepareIncomingIfDue(_ decoder: any AudioDecoder, _ current: PlayItem) {
        guard let end = endFrame ?? decoder.totalFrames else { return }
        if let incoming {
            if fade == nil, end - frame <= incoming.overlapFrames {
                let frames = Int(Double(max(0, end - frame)) * Double(outFormat.sampleRate) / Double(decoder.format.sampleRate))
                fade = Fade(curve: FadeCurve(frames: frames, additive: incoming.additive), primaryFadesIn: false, secondary: incoming.source)
            }
            return
        }
        guard crossfade.isEnabled, noFadeAfter != current.token else { return }
        let rate = Double(decoder.format.sampleRate)
        let remaining = Double(end - frame) / rate
        guard remaining <= crossfade.lookaheadSeconds + 0.5 else { return }
        // Not named yet: the core answers when the song starts to be heard; look again later.
        guard let named = peekAnswer(after: current.token) else { return }
        let length = current.lengthMilliseconds.map { Double($0) / 1000 } ?? Double(end) / rate
        guard let next = named, crossfade.canFade(songSeconds: length),
            crossfade.canFade(songSeconds: next.lengthMilliseconds.map { Double($0) / 1000 })
        else {
            noFadeAfter = current.token
            return
        }
        let opened: any AudioDecoder
        let start: Int64
        do {
            opened = try next.open()
            start = Int64(next.startMilliseconds) * Int64(opened.format.sampleRate) / 1000
            if start > 0 { try opened.seek(toFrame: start) }
        } catch {
            // Opened again at the join, where a failure is reported as usual.
            if !interrupt.isPending { noFadeAfter = current.token }
            return
        }
        guard let overlap = crossfade.overlap(outgoing: decoder.mixRamp, incoming: opened.mixRamp) else {
            noFadeAfter = current.token
            return
        }
        _ = takeAnswer(after: current.token)
        taken.append(next.token)
        events(.decoding(token: next.token))
        let source = FadeSource(
            item: next, decoder: opened, startFrame: start, mixRate: outFormat.sampleRate, mixChannels: outFormat.channels)
        incoming = Incoming(source: source, overlapFrames: Int64(min(overlap.seconds, remaining) * rate), additive: overlap.additive)
    }

    /// How many frames of the current song may be decoded before the overlap must begin.
    func framesBeforeOverlap() -> Int {
        guard let incoming, fade == nil, let end = endFrame ?? decoder?.totalFrames else { return Int.max }
        return Int(max(1, end - frame - incoming.overlapFrames))
    }

    /// One chunk through floats: the current song (converted, when it plays `through`),
    /// mixed with the song fading against it.
    func mixStep(_ decoder: any AudioDecoder, _ current: PlayItem, buffer: inout [UInt8]) {
        let channels = Int(outFormat.channels)
        let chunkFrames = MusicPipe.chunkBytes / max(outFormat.frameBytes, 4 * channels)
        floats.removeAll(keepingCapacity: true)
        var frames = 0
        var failure: String?
        let startFrame: Int64
        if let through {
            startFrame = outFrame
            var wanted = chunkFrames
            let before = framesBeforeOverlap()
            if before != Int.max {
                wanted = min(wanted, max(1, Int(Double(before) * Double(outFormat.sampleRate) / Double(decoder.format.sampleRate))))
            }
            frames = through.read(frames: wanted, into: &floats, padding: false)
            frame = through.frame
            if frames == 0 { failure = through.failure }
        } else {
            startFrame = frame
            let frameBytes = decoder.format.frameBytes
            (frames, failure) = decodeFrames(decoder, into: &buffer, limit: chunkFrames)
            if frames > 0 {
                // The direct path's format is the pipe's: only the sample type changes.
                buffer.withUnsafeBytes { raw in
                    PCMConverter.toFloat(UnsafeRawBufferPointer(rebasing: raw[..<(frames * frameBytes)]), format: decoder.format, frames: frames, into: &floats)
                }
            }
        }
        if stepEnded(frames: frames, failure: failure, current) { return }
        applyFade(frames: frames, channels: channels)
        if produceFloats(startFrame: startFrame) {
            if through != nil { outFrame += Int64(frames) } else { frame += Int64(frames) }
        }
    }

    /// Scales `floats` (the pipe's song) and adds the other song, along the fade's curve.
    private func applyFade(frames: Int, channels: Int) {
        guard var fade else { return }
        let curve = fade.curve
        if let secondary = fade.secondary {
            mixed.removeAll(keepingCapacity: true)
            secondary.read(frames: frames, into: &mixed, padding: true)
        }
        let hasSecondary = fade.secondary != nil
        var gains = curve.gains(from: fade.position)
        floats.withUnsafeMutableBufferPointer { own in
            mixed.withUnsafeBufferPointer { other in
                for index in 0..<frames {
                    let (fadingIn, fadingOut) = gains.next()
                    let ownGain = fade.primaryFadesIn ? fadingIn : fadingOut
                    let otherGain = fade.primaryFadesIn ? fadingOut : fadingIn
                    let base = index * channels
                    for channel in base..<(base + channels) {
                        own[channel] = hasSecondary ? own[channel] * ownGain + other[channel] * otherGain : own[channel] * ownGain
                    }
                }
            }
        }
        fade.position += frames
        // A fade-in is over at its end; a fade-out lasts until its song ends (silent by then).
        self.fade = fade.primaryFadesIn && fade.position >= curve.frames ? nil : fade
    }

    /// The outgoing song ended: its follower becomes the pipe's song, finishing its fade-in
    /// if the outgoing song ended early, and playing directly again when its own format is
    /// the pipe's.
    func handOver() {
        guard let incoming else { return }
        self.incoming = nil
        let source = incoming.source
        let faded = fade
        fade = nil
        current = source.item
        decoder = source.decoder
        reportedTags = nil
        firstChunk = true
        let rate = source.decoder.format.sampleRate
        endFrame = source.item.endMilliseconds.map { Int64($0) * Int64(rate) / 1000 }
        frame = source.frame
        guard let faded, faded.secondary != nil else {
            // The outgoing song ended before the overlap began: a plain join.
            through = nil
            outFormat = source.decoder.format
            return
        }
        if faded.position < faded.curve.frames {
            fade = Fade(curve: faded.curve, position: faded.position, primaryFadesIn: true, secondary: nil)
        }
        outFrame = Int64(source.item.startMilliseconds) * Int64(outFormat.sampleRate) / 1000 + Int64(faded.position)
        guard source.decoder.format == outFormat, fade == nil else {
            through = source
            return
        }
        through = nil
        let leftover = source.takePending()
        guard !leftover.isEmpty else { return }
        floats = leftover
        _ = produceFloats(startFrame: frame - Int64(leftover.count / Int(outFormat.channels)))
    }

    /// Writes `floats` as one chunk in the pipe's format.
    private func produceFloats(startFrame: Int64) -> Bool {
        encoded.removeAll(keepingCapacity: true)
        PCMConverter.fromFloat(floats, format: outFormat, into: &encoded)
        return encoded.withUnsafeBytes { produceChunk($0, format: outFormat, startFrame: startFrame) }
    }

    /// A skip (`next`, `previous`) while playing: the song left behind, reopened where it was
    /// heard, fades out under the new one. Songs too short to fade simply cut, as in MPD.
    func startSkipFade(from leaving: PlayItem) {
        // A stream of unknown length (a radio) is not reopened to fade it: the skip cuts.
        guard crossfade.isEnabled, decoder != nil, let current,
            crossfade.canFade(songSeconds: current.lengthMilliseconds.map { Double($0) / 1000 }),
            crossfade.canFade(songSeconds: leaving.lengthMilliseconds.map { Double($0) / 1000 })
        else { return }
        do {
            let opened = try leaving.open()
            let rate = Int64(opened.format.sampleRate)
            let start = Int64(leaving.startMilliseconds) * rate / 1000
            if start > 0 { try opened.seek(toFrame: start) }
            let end = leaving.endMilliseconds.map { Int64($0) * rate / 1000 } ?? opened.totalFrames
            let left = end.map { Double($0 - start) / Double(rate) } ?? crossfade.seconds
            let seconds = min(crossfade.seconds, left, CrossfadeSettings.longestOverlap)
            guard seconds > 0.05 else { return }
            let source = FadeSource(
                item: leaving, decoder: opened, startFrame: start, mixRate: outFormat.sampleRate, mixChannels: outFormat.channels)
            fade = Fade(
                curve: FadeCurve(frames: Int(seconds * Double(outFormat.sampleRate)), additive: false), primaryFadesIn: true,
                secondary: source)
        } catch {
            return
        }
    }

    func dropIncoming() {
        incoming = nil
        if fade?.primaryFadesIn == false { fade = nil }
    }

    func dropCrossfade() {
        incoming = nil
        fade = nil
        noFadeAfter = nil
        if through != nil {
            through = nil
            if let decoder { outFormat = decoder.format }
        }
    }
}
