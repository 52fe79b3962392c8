import Foundation
import NimbusModel
import NimbusOutput
import Synchronization

/// One partition's playback machinery: the decoder thread, the pipe, and a thread per enabled
/// output. Control methods return at once (they post to the threads); events come back through
/// `events` on those threads.
public final class PlayerEngine: Sendable {
    /// An output the engine may drive.
    public struct OutputSlot: Sendable {
        public let id: Int
        public let name: String
        public let fixedFormat: AudioFormatPattern?
        /// Creates the output on first use (outputs own C handles and live on their thread).
        public let make: @Sendable () -> any AudioOutput

        public init(id: Int, name: String, fixedFormat: AudioFormatPattern?, make: @escaping @Sendable () -> any AudioOutput) {
            self.id = id
            self.name = name
            self.fixedFormat = fixedFormat
            self.make = make
        }
    }

    private struct State: @unchecked Sendable {
        // Invariant: only read and written inside `state.withLock`.
        var playerState: PlayerState = .stop
        var workers: [Int: OutputWorker] = [:]
        var clock: OutputWorker?
        var lastToken: UInt64 = 0
    }

    private let pipe = MusicPipe()
    private let decoder: DecoderWorker
    private let state = Mutex(State())
    private let events: @Sendable (PlayerEvent) -> Void
    private let fallbackClockID = -1

    public init(events: @escaping @Sendable (PlayerEvent) -> Void) {
        self.events = events
        decoder = DecoderWorker(pipe: pipe, events: events)
    }

    deinit {
        decoder.shutdown()
        state.withLock { state in
            for worker in state.workers.values { worker.shutdown() }
        }
    }

    // MARK: outputs

    /// Starts threads for newly enabled outputs and stops those of disabled ones. The first
    /// enabled output keeps time; with none enabled a paced null output does.
    public func setOutputs(_ slots: [OutputSlot]) {
        state.withLock { state in
            let wanted = Set(slots.map(\.id))
            for (id, worker) in state.workers where !wanted.contains(id) {
                worker.shutdown()
                state.workers[id] = nil
            }
            let clockID = slots.first?.id ?? fallbackClockID
            if let clock = state.clock, clock.id != clockID {
                clock.shutdown()
                state.workers[clock.id] = nil
                state.clock = nil
            }
            // An output that becomes the clock gets a clock worker (it reports song starts
            // and the end of the queue, which a plain worker does not).
            if let worker = state.workers[clockID], !worker.isClock {
                worker.shutdown()
                state.workers[clockID] = nil
            }
            let all = slots.isEmpty
                ? [OutputSlot(id: fallbackClockID, name: "clock", fixedFormat: nil) { NullOutput(paced: true) }] : slots
            for slot in all where state.workers[slot.id] == nil {
                let worker = OutputWorker(
                    id: slot.id, name: slot.name, output: slot.make(), fixedFormat: slot.fixedFormat,
                    isClock: slot.id == clockID, pipe: pipe, events: events)
                worker.setPaused(state.playerState == .pause)
                state.workers[slot.id] = worker
                if slot.id == clockID { state.clock = worker }
            }
        }
    }

    public func setVolume(_ volume: Int, output id: Int) {
        state.withLock { $0.workers[id]?.volume.store(volume, ordering: .relaxed) }
    }

    // MARK: transport

    /// Starts `item` now (dropping whatever was playing) with `next` queued behind it;
    /// `paused` loads it and holds before the first sample is heard (MPD's border pause).
    public func play(_ item: PlayItem, next: PlayItem?, paused: Bool = false) {
        state.withLock { state in
            state.playerState = paused ? .pause : .play
            for worker in state.workers.values { worker.setPaused(paused) }
        }
        decoder.start(item, next: next)
    }

    /// Names the song that follows `token` (nil: the queue ends after it). Answers the
    /// decoder's `.decoding(token)`, or corrects an earlier answer not yet taken up.
    public func setNext(_ item: PlayItem?, after token: UInt64) {
        decoder.setNext(item, after: token)
    }

    /// Drops the song `token`, already taken up by the decoder, and continues with `item`
    /// instead — unless some of it was heard, in which case it simply plays on.
    public func replace(from token: UInt64, with item: PlayItem?) {
        decoder.replace(from: token, with: item)
    }

    public func seek(toMilliseconds milliseconds: Int) {
        state.withLock { state in
            if state.playerState == .stop { return }
            state.clock?.heardFrames.store(0, ordering: .relaxed)
        }
        decoder.seek(toMilliseconds: milliseconds)
    }

    public func pause() {
        state.withLock { state in
            guard state.playerState == .play else { return }
            state.playerState = .pause
            for worker in state.workers.values { worker.setPaused(true) }
        }
    }

    public func resume() {
        state.withLock { state in
            guard state.playerState == .pause else { return }
            state.playerState = .play
            for worker in state.workers.values { worker.setPaused(false) }
        }
    }

    public func stop() {
        state.withLock { state in
            state.playerState = .stop
            for worker in state.workers.values { worker.setPaused(false) }
        }
        decoder.stop()
        pipe.clear()
    }

    /// The player finished the queue on its own (after `.finished`).
    public func markStopped() {
        state.withLock { $0.playerState = .stop }
    }

    // MARK: status

    public var playingToken: UInt64 {
        state.withLock { $0.clock?.playingToken.load(ordering: .relaxed) ?? 0 }
    }

    public var status: PlayerStatus {
        state.withLock { state in
            var status = PlayerStatus()
            status.state = state.playerState
            guard let clock = state.clock, state.playerState != .stop else { return status }
            status.token = clock.playingToken.load(ordering: .relaxed)
            let rate = Int64(max(1, clock.sampleRate.load(ordering: .relaxed)))
            status.elapsedMilliseconds = Int(clock.heardFrames.load(ordering: .relaxed) * 1000 / rate)
            status.format = clock.currentFormat
            status.bitRate = clock.bitRate.load(ordering: .relaxed)
            return status
        }
    }
}
