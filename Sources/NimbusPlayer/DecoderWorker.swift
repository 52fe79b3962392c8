import Foundation
import NimbusDecoder
import NimbusInput
import NimbusModel
import NimbusPCM
import NimbusOutput
import NimbusSupport
import Synchronization

/// The decoder thread: opens songs, decodes them into the pipe, and continues straight into
/// the next song when one ends, so consecutive songs join without a gap.
///
/// Which song follows is the core's decision: `start` names the first song's follower, and
/// from then on the core names the follower of each song when that song starts to be heard
/// (`setNext(_:after:)`; nil ends the queue). A decoder that finishes a song before its
/// follower is known waits (the pipe keeps the outputs busy), so songs shorter than the pipe
/// still follow each other without the queue ending early — MPD's one-song lookahead.
///
/// Commands arrive through a mailbox and are taken between chunks; a command also interrupts
/// a read stuck waiting for the network, and the song it broke is reopened at the same frame
/// when the command keeps it.
final class DecoderWorker: @unchecked Sendable {
    // Invariant: `mailbox`, `pipe`, `events` and `interrupt` are shared; every other field
    // belongs to the decoder thread alone.
    private let mailbox: DecoderMailbox
    let pipe: MusicPipe
    let wakes: HeldWakes
    let events: @Sendable (PlayerEvent) -> Void
    let interrupt = ReadInterrupt()
    /// The thread starts with the first command: a partition that never plays costs none.
    private let threadStarted = Atomic(false)

    /// The song being decoded into the pipe.
    var song: OpenSong?
    /// A command interrupted the opening of this song: it is opened from its start once the
    /// command turns out to keep it.
    private var unopened: PlayItem?
    /// A command interrupted a read of `song`, leaving its decoder's library in an unknown
    /// state: it is reopened at its frame once the command turns out to keep it.
    var readInterrupted = false
    /// The song whose follower the decoder waits for.
    private var awaiting: UInt64?
    /// A follower the decoder settled itself (a crossfade's follower given back, a
    /// replacement of one), which wins over the mailbox's.
    var settled: (after: UInt64, item: PlayItem?)?
    /// Songs decoded into the pipe since the last fresh start, in order: a replacement drops
    /// one of them and everything after it.
    var chain: [UInt64] = []
    /// The pipe's generation since the last fresh start (chunks of older ones are dropped).
    private var generation = 0
    /// Songs already opened again after their file changed (once is enough).
    private var retried: Set<UInt64> = []
    // Crossfading (DecoderWorker+Crossfade.swift).
    var crossfade = CrossfadeSettings()
    /// The song whose follower was looked at and will not overlap it (too short, no overlap).
    var noOverlapAfter: UInt64?
    let mixer: CrossfadeMixer

    init(pipe: MusicPipe, wakes: HeldWakes, rates: RateConversion, events: @escaping @Sendable (PlayerEvent) -> Void) {
        mixer = CrossfadeMixer(rates: rates)
        self.pipe = pipe
        self.wakes = wakes
        self.events = events
        mailbox = DecoderMailbox(interrupt: interrupt, wakes: wakes)
    }

    /// The song being decoded, open or not.
    var current: PlayItem? { song?.item ?? unopened }

    // MARK: control (any thread)

    func start(_ item: PlayItem, next: PlayItem?, fadingOut: PlayItem? = nil) {
        post(.start(item, fadingOut: fadingOut), follower: (item.token, next))
    }

    /// The core's answer to `.decoding(after)`.
    func setNext(_ item: PlayItem?, after token: UInt64) {
        startThreadIfNeeded()
        mailbox.name(item, after: token)
        wakes.send { [pipe] in pipe.wakeAll() }
    }

    /// Abandons the song `token` and continues with `item`, unless some of it was heard already.
    func replace(from token: UInt64, with item: PlayItem?) {
        post(.replace(from: token, with: item))
    }

    func setCrossfade(_ settings: CrossfadeSettings) {
        startThreadIfNeeded()
        mailbox.setCrossfade(settings)
        wakes.send { [pipe] in pipe.wakeAll() }
    }

    func stop() {
        post(.stop)
    }

    func shutdown() {
        if threadStarted.load(ordering: .acquiring) { mailbox.post(.shutdown) }
        pipe.close()
    }

    private func post(_ command: DecoderCommand, follower: (after: UInt64, item: PlayItem?)? = nil) {
        startThreadIfNeeded()
        mailbox.post(command, follower: follower)
        // Wake a producer blocked on a full pipe so it sees the command.
        wakes.send { [pipe] in pipe.wakeAll() }
    }

    private func startThreadIfNeeded() {
        guard threadStarted.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing).exchanged else { return }
        // A little below the core loop (see ThreadPriority), set as the thread starts.
        DaemonThread.start(name: "decoder", priority: .playback) { [self] in run() }
    }

    // MARK: the thread

    private func run() {
        ReadInterrupt.install(interrupt)
        var buffer = [UInt8](repeating: 0, count: MusicPipe.chunkBytes)
        while true {
            let idle = song == nil
            if idle { pipe.producerPaused() }
            guard apply(mailbox.take(waiting: idle)) else { return }
            guard !readInterrupted, song != nil else { continue }
            if crossfade.isEnabled || mixer.follower != nil { openFollowerIfDue() }
            if mixer.isMixing { mixStep(buffer: &buffer) } else { directStep(buffer: &buffer) }
        }
    }

    /// Carries out the commands taken; false when the thread should end.
    private func apply(_ batch: DecoderMailbox.Batch) -> Bool {
        crossfade = batch.crossfade
        // A new answer or new settings may allow a fade that was ruled out.
        if batch.changed { noOverlapAfter = nil }
        for command in batch.commands {
            switch command {
            case .shutdown:
                return false
            case .stop:
                settled = nil
                forgetSong()
                awaiting = nil
                chain = []
            case .start(let item, let leaving):
                settled = nil
                forgetSong()
                generation = pipe.clear()
                awaiting = nil
                chain = []
                retried = []
                begin(item)
                if let leaving { startSkipFade(from: leaving) }
            case .replace(let token, let item):
                replace(token, with: item)
            }
        }
        if readInterrupted || unopened != nil, !interrupt.isPending { reopenInterrupted() }
        if current == nil { readInterrupted = false }
        if let awaiting { continueIfAnswered(after: awaiting) }
        return true
    }

    private func forgetSong() {
        mixer.dropAll(currentFormat: song?.format)
        song = nil
        unopened = nil
        noOverlapAfter = nil
    }

    /// The core no longer wants `token` (or what follows it) after the current song.
    private func replace(_ token: UInt64, with item: PlayItem?) {
        if let current = song?.item, mixer.follower?.source.item.token == token {
            // The follower opened for a crossfade is no longer wanted: whatever of it was
            // mixed in stays, the outgoing song plays on, and `item` follows it instead.
            mixer.dropFollower()
            chain.removeAll { $0 == token }
            settled = (current.token, item)
        } else if chain.contains(token), pipe.truncate(fromToken: token) {
            // Nothing of `token` was heard yet: its decoded part is gone from the pipe. (Done
            // here, between chunks, so no chunk of it is in flight.)
            forgetSong()
            awaiting = nil
            chain = Array(chain.prefix { $0 != token })
            if let item { begin(item) } else { finishQueue() }
        }
    }

    /// Opens again the song a command interrupted, now that the command kept it: where it
    /// was read, or from its start if it never opened.
    private func reopenInterrupted() {
        guard let item = current else { return }
        let old = song
        do {
            try reopen(item, keeping: old, at: old.map { old in { _ in old.frame } })
        } catch {
            // A newer command interrupted this too: the song waits for the next round.
            if interrupt.isPending { return }
            readInterrupted = false
            unopened = nil
            events(.failed(token: item.token, message: (error as? DecoderError)?.message ?? "\(error)"))
            songEnded(item.token)
        }
    }

    /// Opens `item` as the song the pipe plays, at its range start or `target`; `old`: the
    /// same song before, whose place in the pipe (first chunk, tags reported) carries over.
    private func reopen(_ item: PlayItem, keeping old: OpenSong?, at target: ((AudioFormat) -> Int64)? = nil) throws {
        var opened = try OpenSong.open(item, at: target)
        if let old {
            opened.firstChunk = old.firstChunk
            opened.reportedTags = old.reportedTags
        }
        song = opened
        unopened = nil
        readInterrupted = false
        mixer.playDirect(opened.format)
    }

    /// The plain path: the song's own PCM straight into the pipe, sample-exact.
    private func directStep(buffer: inout [UInt8]) {
        guard let current = song else { return }
        let (frames, failure) = current.decode(into: &buffer, limit: mixer.framesBeforeOverlap(current))
        if stepEnded(frames: frames, failure: failure) { return }
        let bytes = frames * current.format.frameBytes
        let produced = buffer.withUnsafeBytes { raw in
            produceChunk(UnsafeRawBufferPointer(rebasing: raw[..<bytes]), format: current.format, startFrame: current.frame)
        }
        if produced { song?.frame += Int64(frames) }
    }

    /// One chunk through the crossfade mixer.
    private func mixStep(buffer: inout [UInt8]) {
        guard var current = song else { return }
        let (chunk, failure) = mixer.mix(&current, buffer: &buffer)
        song = current
        guard let chunk else {
            _ = stepEnded(frames: 0, failure: failure)
            return
        }
        if mixer.encoded.withUnsafeBytes({ produceChunk($0, format: mixer.format, startFrame: chunk.startFrame) }), var written = song {
            mixer.advance(&written, by: chunk)
            song = written
        }
    }

    /// After a decode: true when nothing is left to write this round — a command broke a wait
    /// for the network (not the song's fault), or the song has nothing more.
    private func stepEnded(frames: Int, failure: String?) -> Bool {
        if (failure != nil || frames == 0) && interrupt.isPending {
            readInterrupted = true
            return true
        }
        if frames == 0, let current = song?.item {
            songFinished(current, failure: failure)
            return true
        }
        return false
    }

    /// Writes one chunk of the current song; false when a command cleared the pipe meanwhile.
    func produceChunk(_ pcm: UnsafeRawBufferPointer, format: AudioFormat, startFrame: Int64) -> Bool {
        guard let current = song else { return false }
        let item = current.item, first = current.firstChunk, bitRate = current.decoder.bitRate
        let produced = pipe.produce(generation: generation) { chunk in
            chunk.bytes.withUnsafeMutableBytes { target in
                if pcm.count > 0 { target.baseAddress!.copyMemory(from: pcm.baseAddress!, byteCount: pcm.count) }
            }
            chunk.count = pcm.count
            chunk.format = format
            chunk.token = item.token
            chunk.startFrame = startFrame
            chunk.first = first
            chunk.endOfQueue = false
            chunk.bitRate = bitRate
            chunk.streamTitle = first ? item.streamTitle : nil
        }
        guard produced else { return false }
        song?.firstChunk = false
        if let tags = current.decoder.streamTags, tags != current.reportedTags {
            song?.reportedTags = tags
            events(.tags(token: item.token, name: tags.name, title: tags.title))
        }
        return true
    }

    /// The current song has nothing more: its follower takes over — mid-fade if one was
    /// opened for a crossfade, else through the core's answer.
    private func songFinished(_ current: PlayItem, failure: String?) {
        if let failure {
            if reopenIfChanged(current) { return }
            events(.failed(token: current.token, message: failure))
        } else if song?.firstChunk == true {
            // A song without a single frame still starts (and ends at once) for the
            // outputs, or the core would never name what follows it.
            _ = produceChunk(UnsafeRawBufferPointer(start: nil, count: 0), format: mixer.format, startFrame: 0)
        }
        if let (next, leftover) = mixer.handOver() {
            song = next
            if let leftover {
                _ = mixer.encoded.withUnsafeBytes { produceChunk($0, format: mixer.format, startFrame: leftover.startFrame) }
            }
        } else {
            songEnded(current.token)
        }
    }

    /// A song that failed because its file changed on the server (the storage lists it again
    /// to tell) is opened once more from its start, so the new version plays instead of an
    /// error until the next library update — but only while no output has read any of it:
    /// once some of the old version was heard, the new one must not follow it (a splice of
    /// two files), so the song fails with its error and the next play is the new version.
    /// What the old version put in the pipe and no output read goes either way.
    private func reopenIfChanged(_ item: PlayItem) -> Bool {
        guard !retried.contains(item.token), !interrupt.isPending, item.sourceChanged() else { return false }
        retried.insert(item.token)
        guard pipe.dropUnread(ofToken: item.token) else { return false }
        do {
            try reopen(item, keeping: song)
            song?.firstChunk = true
            return true
        } catch {
            return false
        }
    }

    /// Takes up `item`: tells the core (which answers with its follower) and opens it. A song
    /// that cannot be opened is reported and the decoder moves on to its follower.
    func begin(_ item: PlayItem) {
        chain.append(item.token)
        events(.decoding(token: item.token))
        do {
            try reopen(item, keeping: nil)
        } catch {
            song = nil
            if interrupt.isPending {
                // Opened when the command that broke the opening keeps the song.
                unopened = item
                return
            }
            if reopenIfChanged(item) { return }
            events(.failed(token: item.token, message: (error as? DecoderError)?.message ?? "\(error)"))
            songEnded(item.token)
        }
    }

    /// The song `token` ended (or broke): continue with its follower once the core named it.
    private func songEnded(_ token: UInt64) {
        song = nil
        unopened = nil
        awaiting = token
        continueIfAnswered(after: token)
    }

    private func continueIfAnswered(after token: UInt64) {
        guard let answer = follower(after: token, taking: true) else { return }
        awaiting = nil
        if let next = answer { begin(next) } else { finishQueue() }
    }

    /// The follower of `token` if the core (or the decoder itself) named it (`.some(nil)`:
    /// the queue ends there); `taking` uses it up.
    func follower(after token: UInt64, taking: Bool) -> PlayItem?? {
        if let settled, settled.after == token {
            if taking { self.settled = nil }
            return .some(settled.item)
        }
        return mailbox.follower(after: token, taking: taking)
    }

    private func finishQueue() {
        song = nil
        unopened = nil
        _ = pipe.produce(generation: generation) { chunk in
            chunk.count = 0
            chunk.endOfQueue = true
            chunk.first = false
            chunk.token = 0
        }
    }
}
