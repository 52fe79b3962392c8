import Foundation
import NimbusDecoder
import NimbusInput
import NimbusModel
import NimbusOutput

/// The decoder thread: opens songs, decodes them into the pipe, and continues straight into
/// the next song when one ends, so consecutive songs join without a gap.
///
/// Which song follows is the core's decision: `start` names the first song's follower, and
/// from then on the core names the follower of each song when that song starts to be heard
/// (`setNext(_:after:)`; nil ends the queue). A decoder that finishes a song before its
/// follower is known waits (the pipe keeps the outputs busy), so songs shorter than the pipe
/// still follow each other without the queue ending early — MPD's one-song lookahead.
///
/// Control arrives through a mailbox (lock plus condition) and is checked between chunks; a
/// command also interrupts a read stuck waiting for the network, and the song it broke is
/// reopened at the same frame when the command keeps it (a seek does).
final class DecoderWorker: @unchecked Sendable {
    // Invariant: `mailbox` fields are only touched with `condition` locked; `decoder` and the
    // fields below it belong to the decoder thread alone.
    private struct Mailbox {
        var start: PlayItem?
        /// The song that follows `nextAfter` (nil item: the queue ends there).
        var next: PlayItem?
        var nextAfter: UInt64?
        var seekMilliseconds: Int?
        /// With `start`: the song a skip leaves, opened where it was heard, to fade out.
        var fadeOut: PlayItem?
        var crossfade = CrossfadeSettings()
        /// Drop the song with this token (and whatever came after it) and decode the item instead.
        var replacement: (from: UInt64, item: PlayItem?)?
        var stop = false
        var shutdown = false
        var changed = false
    }

    private let condition = NSCondition()
    private var mailbox = Mailbox()
    let pipe: MusicPipe
    let events: @Sendable (PlayerEvent) -> Void

    var decoder: (any AudioDecoder)?
    /// The stream tags last reported for the current song.
    var reportedTags: StreamTags?
    var current: PlayItem?
    /// The song whose follower the decoder waits for.
    private var awaiting: UInt64?
    /// A follower the decoder settled itself (a crossfade's follower given back), which
    /// wins over the mailbox's.
    var answer: (after: UInt64, item: PlayItem?)?
    /// Tokens taken up since the last fresh start, for replacements.
    var taken: [UInt64] = []
    var frame: Int64 = 0
    var endFrame: Int64?
    var generation = 0
    var firstChunk = false
    // Crossfading (DecoderWorker+Crossfade.swift).
    var crossfade = CrossfadeSettings()
    /// The format of the current song's chunks: its own, or the one it faded in under.
    var outFormat = AudioFormat(sampleRate: 44100, sample: .s16, channels: 2)
    /// The current song plays on through floats: it faded in under a song of another format.
    var through: FadeSource?
    /// Chunk frame position of a song playing `through` (in `outFormat`'s rate).
    var outFrame: Int64 = 0
    /// The follower, opened ahead of the end for a crossfade.
    var incoming: Incoming?
    /// The overlap being mixed.
    var fade: Fade?
    /// The song whose follower was looked at and will not fade in (too short, no overlap).
    var noFadeAfter: UInt64?
    var encoded: [UInt8] = []
    var floats: [Float] = []
    var mixed: [Float] = []
    let interrupt = ReadInterrupt()
    /// An interrupted read left the decoder's library in an unknown state.
    var broken = false
    /// Songs already opened again after their file changed (once is enough).
    private var retried: Set<UInt64> = []

    init(pipe: MusicPipe, events: @escaping @Sendable (PlayerEvent) -> Void) {
        self.pipe = pipe
        self.events = events
    }

    /// The thread starts with the first command: a partition that never plays costs none.
    private var threadStarted = false

    private func startThreadIfNeeded() {
        guard !threadStarted else { return }
        threadStarted = true
        let thread = Thread { [self] in run() }
        thread.name = "decoder"
        thread.start()
    }

    // MARK: control (any thread)

    func start(_ item: PlayItem, next: PlayItem?, fadingOut: PlayItem? = nil) {
        post {
            $0.start = item
            $0.fadeOut = fadingOut
            $0.next = next
            $0.nextAfter = item.token
            $0.seekMilliseconds = nil
            $0.replacement = nil
            $0.stop = false
        }
    }

    /// The core's answer to `.decoding(after)`.
    func setNext(_ item: PlayItem?, after token: UInt64) {
        post(interrupting: false) {
            $0.next = item
            $0.nextAfter = token
        }
    }

    /// Abandons the song `token` and continues with `item`, unless some of it was heard already.
    func replace(from token: UInt64, with item: PlayItem?) {
        post { $0.replacement = (token, item) }
    }

    func setCrossfade(_ settings: CrossfadeSettings) {
        post(interrupting: false) { $0.crossfade = settings }
    }

    func seek(toMilliseconds milliseconds: Int) {
        post { $0.seekMilliseconds = milliseconds }
    }

    func stop() {
        post {
            $0.stop = true
            $0.start = nil
            $0.next = nil
            $0.nextAfter = nil
            $0.replacement = nil
            $0.seekMilliseconds = nil
        }
    }

    func shutdown() {
        let running = condition.withLock { threadStarted }
        if running { post { $0.shutdown = true } }
        pipe.close()
    }


    private func post(interrupting: Bool = true, _ change: (inout Mailbox) -> Void) {
        condition.withLock {
            startThreadIfNeeded()
            change(&mailbox)
            mailbox.changed = true
            // Under the lock, so the decoder never takes the command but keeps the interrupt.
            if interrupting { interrupt.interrupt() }
            condition.broadcast()
        }
        // Wake a producer blocked on a full pipe so it sees the command.
        pipe.wakeAll()
    }

    // MARK: the thread

    private func run() {
        ReadInterrupt.install(interrupt)
        var buffer = [UInt8](repeating: 0, count: MusicPipe.chunkBytes)
        while true {
            guard handleMailbox(waitIfIdle: decoder == nil) else { return }
            guard !broken, let decoder, let current else { continue }
            if crossfade.isEnabled || incoming != nil { prepareIncomingIfDue(decoder, current) }
            if through != nil || fade != nil {
                mixStep(decoder, current, buffer: &buffer)
            } else {
                directStep(decoder, current, buffer: &buffer)
            }
        }
    }

    /// The plain path: the song's own PCM straight into the pipe, sample-exact.
    private func directStep(_ decoder: any AudioDecoder, _ current: PlayItem, buffer: inout [UInt8]) {
        let frameBytes = decoder.format.frameBytes
        let (frames, failure) = decodeFrames(decoder, into: &buffer, limit: Int.max)
        if stepEnded(frames: frames, failure: failure, current) { return }
        let startFrame = frame
        let produced = buffer.withUnsafeBytes { raw in
            produceChunk(UnsafeRawBufferPointer(rebasing: raw[..<(frames * frameBytes)]), format: decoder.format, startFrame: startFrame)
        }
        if produced { frame += Int64(frames) }
    }

    /// Decodes up to a chunk of the current song (`limit` frames at most), stopping at its
    /// range end and where an overlap must begin. A failure comes with no frames: the song
    /// ends there.
    func decodeFrames(_ decoder: any AudioDecoder, into buffer: inout [UInt8], limit: Int) -> (frames: Int, failure: String?) {
        let frameBytes = decoder.format.frameBytes
        var capacity = min(limit, buffer.count / frameBytes, framesBeforeOverlap())
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

    /// After a decode: true when nothing is left to write this round — a command broke a wait
    /// for the network (not the song's fault), or the song has nothing more.
    func stepEnded(frames: Int, failure: String?, _ current: PlayItem) -> Bool {
        if (failure != nil || frames == 0) && interrupt.isPending {
            broken = true
            return true
        }
        if frames == 0 {
            songFinished(current, failure: failure)
            return true
        }
        return false
    }

    /// Writes one chunk of the current song; false when a command cleared the pipe meanwhile.
    func produceChunk(_ pcm: UnsafeRawBufferPointer, format: AudioFormat, startFrame: Int64) -> Bool {
        guard let current else { return false }
        let first = firstChunk
        let bitRate = decoder?.bitRate ?? 0
        let produced = pipe.produce(generation: generation) { chunk in
            chunk.bytes.withUnsafeMutableBytes { target in
                if pcm.count > 0 { target.baseAddress!.copyMemory(from: pcm.baseAddress!, byteCount: pcm.count) }
            }
            chunk.count = pcm.count
            chunk.format = format
            chunk.token = current.token
            chunk.startFrame = startFrame
            chunk.first = first
            chunk.endOfQueue = false
            chunk.bitRate = bitRate
            chunk.streamTitle = first ? current.streamTitle : nil
        }
        if produced {
            firstChunk = false
            if let tags = decoder?.streamTags, tags != reportedTags {
                reportedTags = tags
                events(.tags(token: current.token, name: tags.name, title: tags.title))
            }
        }
        return produced
    }

    /// The current song has nothing more: its follower takes over — mid-fade if one was
    /// opened for a crossfade, else through the core's answer.
    func songFinished(_ current: PlayItem, failure: String?) {
        if let failure {
            if reopenIfChanged(current) { return }
            events(.failed(token: current.token, message: failure))
        } else if firstChunk {
            // A song without a single frame still starts (and ends at once) for the
            // outputs, or the core would never name what follows it.
            _ = produceChunk(UnsafeRawBufferPointer(start: nil, count: 0), format: outFormat, startFrame: 0)
        }
        if incoming != nil {
            handOver()
        } else {
            songEnded(current.token)
        }
    }

    /// A song that failed because its file changed on the server (the storage lists it again
    /// to tell) is opened once more from its start, so the new version plays instead of an
    /// error until the next library update.
    /// What the old version put in the pipe and no output read yet goes, and the new version
    /// starts from the song's start (a fresh start for the core if nothing of it was heard).
    func reopenIfChanged(_ item: PlayItem) -> Bool {
        guard !retried.contains(item.token), !interrupt.isPending, item.sourceChanged() else { return false }
        retried.insert(item.token)
        let nothingHeard = pipe.dropUnread(ofToken: item.token)
        do {
            try restore(item) { Int64(item.startMilliseconds) * Int64($0.sampleRate) / 1000 }
            if nothingHeard { firstChunk = true }
            return true
        } catch {
            return false
        }
    }

    /// Applies pending commands; false when the thread should end.
    private func handleMailbox(waitIfIdle: Bool) -> Bool {
        if waitIfIdle && decoder == nil { pipe.producerPaused() }
        condition.lock()
        while waitIfIdle && !mailbox.changed && decoder == nil {
            condition.wait()
        }
        let box = mailbox
        if box.changed { interrupt.reset() }
        mailbox.changed = false
        mailbox.start = nil
        mailbox.fadeOut = nil
        mailbox.seekMilliseconds = nil
        mailbox.replacement = nil
        mailbox.stop = false
        condition.unlock()
        if box.shutdown { return false }
        crossfade = box.crossfade
        // A new answer or new settings may allow a fade that was ruled out.
        if box.changed { noFadeAfter = nil }
        if box.stop || box.start != nil {
            dropCrossfade()
            answer = nil
        }
        if box.stop {
            decoder = nil
            current = nil
            awaiting = nil
            taken = []
        }
        if let item = box.start {
            generation = pipe.clear()
            awaiting = nil
            taken = []
            retried = []
            begin(item)
            if let leaving = box.fadeOut { startSkipFade(from: leaving) }
        } else if let (from, item) = box.replacement, let current, incoming?.source.item.token == from {
            // The follower opened for a crossfade is no longer wanted: whatever of it was
            // mixed in stays, the outgoing song plays on, and `item` follows it instead.
            dropIncoming()
            taken.removeAll { $0 == from }
            answer = (current.token, item)
        } else if let (from, item) = box.replacement, taken.contains(from), pipe.truncate(fromToken: from) {
            dropCrossfade()
            // Nothing of `from` was heard yet: its decoded part is gone from the pipe. (Done
            // here, between chunks, so no chunk of it is in flight.)
            decoder = nil
            current = nil
            awaiting = nil
            taken = Array(taken.prefix { $0 != from })
            if let item { begin(item) } else { finishQueue() }
        } else if let milliseconds = box.seekMilliseconds, let current, decoder != nil || broken {
            generation = pipe.clear()
            if let incoming { answer = (current.token, incoming.source.item) }
            dropCrossfade()
            do {
                if let decoder, !broken {
                    let target = Int64(milliseconds) * Int64(decoder.format.sampleRate) / 1000
                    endFrame = current.endMilliseconds.map { Int64($0) * Int64(decoder.format.sampleRate) / 1000 }
                    try seek(decoder, to: target)
                    frame = target
                } else {
                    try restore(current) { Int64(milliseconds) * Int64($0.sampleRate) / 1000 }
                }
                firstChunk = true
            } catch {
                if !interrupt.isPending {
                    events(.failed(token: current.token, message: "Seek failed: \((error as? DecoderError)?.message ?? "\(error)")"))
                }
            }
        }
        if broken, let current, !interrupt.isPending {
            let resume = frame
            let fresh = decoder == nil
            do {
                try restore(current) { fresh ? Int64(current.startMilliseconds) * Int64($0.sampleRate) / 1000 : resume }
            } catch {
                broken = false
                events(.failed(token: current.token, message: (error as? DecoderError)?.message ?? "\(error)"))
                songEnded(current.token)
            }
        }
        if current == nil { broken = false }
        if let awaiting { takeNextIfAnswered(awaiting) }
        return true
    }

    /// Reopens the song an interrupted read broke, at the frame `target` picks for its format.
    /// A newer command may interrupt this too; the song then stays broken for the next round.
    private func restore(_ item: PlayItem, target: (AudioFormat) -> Int64) throws {
        let opened = try item.open()
        let start = target(opened.format)
        endFrame = item.endMilliseconds.map { Int64($0) * Int64(opened.format.sampleRate) / 1000 }
        if start > 0 { try seek(opened, to: start) }
        decoder = opened
        frame = start
        outFormat = opened.format
        through = nil
        broken = false
    }

    /// A target at or past the last frame ends the song at once (libFLAC and libvorbisfile
    /// refuse such a seek; MPD clamps it to the end): nothing is left to decode.
    private func seek(_ decoder: any AudioDecoder, to target: Int64) throws(DecoderError) {
        if let total = decoder.totalFrames, target >= total {
            endFrame = min(endFrame ?? target, target)
            return
        }
        try decoder.seek(toFrame: target)
    }

    /// Takes up `item`: tells the core (which answers with its follower) and opens it. A song
    /// that cannot be opened is reported and the decoder moves on to its follower.
    func begin(_ item: PlayItem) {
        reportedTags = nil
        taken.append(item.token)
        events(.decoding(token: item.token))
        current = item
        firstChunk = true
        do {
            try restore(item) { Int64(item.startMilliseconds) * Int64($0.sampleRate) / 1000 }
        } catch {
            if interrupt.isPending {
                // Reopened when the command that broke the opening keeps the song.
                decoder = nil
                broken = true
                frame = 0
                return
            }
            if reopenIfChanged(item) { return }
            events(.failed(token: item.token, message: (error as? DecoderError)?.message ?? "\(error)"))
            songEnded(item.token)
        }
    }

    /// The song `token` ended (or broke): continue with its follower once the core named it.
    func songEnded(_ token: UInt64) {
        decoder = nil
        current = nil
        awaiting = token
        takeNextIfAnswered(token)
    }

    private func takeNextIfAnswered(_ token: UInt64) {
        guard let answer = takeAnswer(after: token) else { return }
        awaiting = nil
        if let next = answer { begin(next) } else { finishQueue() }
    }

    /// The follower of `token` if the core named it (`.some(nil)`: the queue ends there).
    func peekAnswer(after token: UInt64) -> PlayItem?? {
        if let answer, answer.after == token { return .some(answer.item) }
        return condition.withLock { mailbox.nextAfter == token ? .some(mailbox.next) : nil }
    }

    func takeAnswer(after token: UInt64) -> PlayItem?? {
        if let answer, answer.after == token {
            self.answer = nil
            return .some(answer.item)
        }
        return condition.withLock { () -> PlayItem?? in
            guard mailbox.nextAfter == token else { return nil }
            let next = mailbox.next
            mailbox.next = nil
            mailbox.nextAfter = nil
            return .some(next)
        }
    }

    private func finishQueue() {
        decoder = nil
        current = nil
        _ = pipe.produce(generation: generation) { chunk in
            chunk.count = 0
            chunk.endOfQueue = true
            chunk.first = false
            chunk.token = 0
        }
    }
}
