import Foundation
import NimbusModel
import NimbusOutput
import NimbusPCM
import NimbusSupport
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
        /// The output's equalizer, balance and crossfeed: owned by its record in the core,
        /// which changes the settings; the worker runs it.
        public let sound: SoundChain
        /// The output's own filter stages (`OutputDefinition.filters`), made for its thread.
        public let filters: @Sendable () -> [any Filter]

        public init(
            id: Int, name: String, fixedFormat: AudioFormatPattern?, sound: SoundChain = SoundChain(),
            filters: @escaping @Sendable () -> [any Filter] = { [] }, make: @escaping @Sendable () -> any AudioOutput
        ) {
            self.id = id
            self.name = name
            self.fixedFormat = fixedFormat
            self.sound = sound
            self.filters = filters
            self.make = make
        }
    }

    private struct State: @unchecked Sendable {
        // Invariant: only read and written inside `state.withLock`.
        var playerState: PlayerState = .stop
        var workers: [Int: OutputWorker] = [:]
        var clock: OutputWorker?
        /// Output ids in the partition's order (the first working one keeps time).
        var order: [Int] = []
        var lastToken: UInt64 = 0
    }

    private let pipe = MusicPipe()
    /// Held by the core while it answers clients (`holdWakes`).
    private let wakes = HeldWakes()
    private let decoder: DecoderWorker
    private let state = Mutex(State())
    private let events: @Sendable (PlayerEvent) -> Void
    private let fallbackClockID = -1

    /// The resampler every conversion of this player uses (mixing, each output's chain).
    private let rates: RateConversion

    public init(rates: RateConversion = .standard, events: @escaping @Sendable (PlayerEvent) -> Void) {
        self.events = events
        self.rates = rates
        decoder = DecoderWorker(pipe: pipe, wakes: wakes, rates: rates, events: events)
    }

    /// Until `releaseWakes`, control calls change what the threads will read but do not wake
    /// them (`HeldWakes`): the core holds them while its clients' answers are still unwritten.
    /// False when they were held already.
    @discardableResult
    public func holdWakes() -> Bool { wakes.hold() }

    public func releaseWakes() { wakes.release() }

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
            let all = slots.isEmpty
                ? [OutputSlot(id: fallbackClockID, name: "clock", fixedFormat: nil) { NullOutput(paced: true) }] : slots
            state.order = all.map(\.id)
            for slot in all where state.workers[slot.id] == nil {
                let worker = OutputWorker(
                    id: slot.id, name: slot.name, output: slot.make(), fixedFormat: slot.fixedFormat, sound: slot.sound, filters: slot.filters(), rates: rates, isClock: false,
                    pipe: pipe, wakes: wakes,
                    events: events
                ) { [weak self] id in self?.outputFailed(id) }
                worker.setPaused(state.playerState == .pause)
                state.workers[slot.id] = worker
            }
            Self.chooseClock(&state)
        }
    }

    /// The first worker in slot order keeps time. A worker that takes over from another
    /// learns the song the old clock was playing; if it already plays a later one, that song
    /// start is reported now (the old clock never reached it).
    private static func chooseClock(_ state: inout State) {
        let workers = state.workers
        let next = state.order.lazy.compactMap { workers[$0] }.first
        guard next !== state.clock else { return }
        let previous = state.clock
        for worker in state.workers.values { worker.isClock.store(worker === next, ordering: .relaxed) }
        state.clock = next
        guard let next, let previous else { return }
        let heard = previous.playingToken.load(ordering: .relaxed)
        if next.playingToken.load(ordering: .relaxed) == 0 { next.playingToken.store(heard, ordering: .relaxed) }
        next.sampleRate.store(previous.sampleRate.load(ordering: .relaxed), ordering: .relaxed)
        next.heardFrames.store(previous.heardFrames.load(ordering: .relaxed), ordering: .relaxed)
    }

    /// A worker's device failed and it stopped: drop it and hand the clock on. The core hears
    /// of it through `.outputFailed` and stops playback only when no output is left.
    private func outputFailed(_ id: Int) {
        let started: UInt64? = state.withLock { state in
            guard let worker = state.workers.removeValue(forKey: id) else { return nil }
            worker.shutdown()
            let before = worker.playingToken.load(ordering: .relaxed)
            Self.chooseClock(&state)
            guard let clock = state.clock, clock !== worker else { return nil }
            let now = clock.playingToken.load(ordering: .relaxed)
            return now != 0 && now != before ? now : nil
        }
        if let started { events(.started(token: started)) }
    }

    public func setVolume(_ volume: Int, output id: Int) {
        state.withLock { $0.workers[id]?.volume.store(volume, ordering: .relaxed) }
    }

    // MARK: transport

    /// Starts `item` now (dropping whatever was playing) with `next` queued behind it;
    /// `paused` loads it and holds before the first sample is heard (MPD's border pause).
    /// `fadingOut`: the song a skip leaves, opened where it was heard, fades out under `item`.
    public func play(_ item: PlayItem, next: PlayItem?, paused: Bool = false, fadingOut: PlayItem? = nil) {
        state.withLock { state in
            state.playerState = paused ? .pause : .play
            for worker in state.workers.values { worker.setPaused(paused) }
        }
        decoder.start(item, next: next, fadingOut: paused ? nil : fadingOut)
    }

    /// `crossfade`, `mixrampdb` and `mixrampdelay` as the decoder applies them from the next
    /// join on.
    public func setCrossfade(_ settings: CrossfadeSettings) {
        decoder.setCrossfade(settings)
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
            var heard = clock.heardFrames.load(ordering: .relaxed)
            let measured = clock.heardAt.load(ordering: .relaxed)
            if state.playerState == .play, measured != 0 {
                // Runs on with the clock since the last write, never past what was written.
                let since = Int64(min(MonotonicClock.now() &- measured, 10_000_000_000))
                heard = max(heard, min(clock.writtenUntil.load(ordering: .relaxed), heard + since * rate / 1_000_000_000))
            }
            status.elapsedMilliseconds = Int(heard * 1000 / rate)
            status.format = clock.currentFormat
            status.bitRate = clock.bitRate.load(ordering: .relaxed)
            return status
        }
    }
}
