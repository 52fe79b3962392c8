import Foundation
import NimbusModel
import NimbusOutput
import NimbusPCM
import NimbusSupport
import Synchronization

/// One output's thread: takes chunks from the pipe, opens the device for their format,
/// converts, applies software volume and plays. The clock output also reports song starts
/// and the end of the queue, and its position is the elapsed time clients see. A device that
/// fails stops its worker (the others play on); the engine then hands the clock on.
final class OutputWorker: @unchecked Sendable {
    // Invariant: `output`, `converter` and `openFormat` belong to the worker thread; shared
    // settings are atomics; `gate` (lock + condition) only guards pause/enable waits.
    let id: Int
    let name: String
    private let output: any AudioOutput
    private let fixedFormat: AudioFormatPattern?
    private let sound: SoundChain
    private let rates: RateConversion
    /// The output's own stages, kept across songs (each chain opens them for its format).
    private let filters: [any Filter]
    private let pipe: MusicPipe
    private let wakes: HeldWakes
    private let events: @Sendable (PlayerEvent) -> Void
    /// Tells the engine this worker's device failed and it stopped.
    private let failed: @Sendable (Int) -> Void
    private let gate = NSCondition()
    private var paused = false
    private var running = true
    private var openFormat: AudioFormat?
    private var sourceFormat: AudioFormat?
    private var converter: FilterChain?
    private var deviceFailed = false
    /// Between a song's first chunk and its end an empty pipe may be a gap in the sound: it is
    /// one when the wait outlasted what the device still held, that is when the output, once
    /// fed again, has taken no more of the song than the time since it began (pauses not
    /// counted). An output that takes audio as fast as it comes (the ALSA `file` plugin,
    /// `sync "no"`) is always ahead of that, so its waits never count.
    private var midSong = false
    private var ranDry = 0
    private var songBegan: UInt64 = 0
    private var songSeconds = 0.0
    /// 0…100, read for every chunk (software mixer); 100 means unity.
    let volume = Atomic<Int>(100)
    /// The clock reports song starts and the end of the queue; the role can move to another
    /// worker without recreating it, so no buffered audio is skipped.
    let isClock: Atomic<Bool>
    /// The song this output plays now (every worker keeps it, so a new clock knows where it is).
    let playingToken = Atomic<UInt64>(0)
    /// Clock output only: how far into the song it is, as of `heardAt`.
    let heardFrames = Atomic<Int64>(0)
    /// When `heardFrames` was measured (nanoseconds, monotonic; 0: not playing), and the end of
    /// what the device holds: between writes, `elapsed` runs on from there with the clock
    /// instead of standing still for a whole chunk (a tenth of a second) after `play`.
    let heardAt = Atomic<UInt64>(0)
    let writtenUntil = Atomic<Int64>(0)
    let sampleRate = Atomic<UInt32>(44100)
    let bitRate = Atomic<Int>(0)
    private let formatBox = Mutex<AudioFormat?>(nil)

    init(
        id: Int, name: String, output: any AudioOutput, fixedFormat: AudioFormatPattern?, sound: SoundChain, filters: [any Filter], rates: RateConversion, isClock: Bool,
        pipe: MusicPipe, wakes: HeldWakes,
        events: @escaping @Sendable (PlayerEvent) -> Void, failed: @escaping @Sendable (Int) -> Void
    ) {
        self.id = id
        self.name = name
        self.output = output
        self.fixedFormat = fixedFormat
        self.sound = sound
        self.rates = rates
        self.filters = filters
        self.isClock = Atomic(isClock)
        self.pipe = pipe
        self.wakes = wakes
        self.events = events
        self.failed = failed
        // The output itself, not a weak self: a weak reference gives the worker a refcount side
        // table, and `status` retains the clock worker, so every status would pay for it.
        let interruptible = Interruptible(output)
        pipe.addConsumer(id) { interruptible.output.interrupt() }
        DaemonThread.start(name: "output-\(name)") { [self] in run() }
    }

    var currentFormat: AudioFormat? { formatBox.withLock { $0 } }

    func setPaused(_ value: Bool) {
        gate.withLock { paused = value }
        wakes.send { [gate, pipe] in
            gate.withLock { gate.broadcast() }
            pipe.wakeAll()
        }
    }

    func shutdown() {
        gate.withLock {
            running = false
            gate.broadcast()
        }
        pipe.removeConsumer(id)
        pipe.wakeAll()
    }

    private func run() {
        var generation = pipe.generation
        while true {
            gate.lock()
            if paused && running {
                gate.unlock()
                let held = openFormat != nil && output.pause()
                let pausedAt = MonotonicClock.now()
                gate.lock()
                while paused && running { gate.wait() }
                gate.unlock()
                if held { output.resume() }
                songBegan &+= MonotonicClock.now() &- pausedAt
                if heardAt.load(ordering: .relaxed) != 0 { heardAt.store(MonotonicClock.now(), ordering: .relaxed) }
            } else {
                gate.unlock()
            }
            guard gate.withLock({ running }) else { break }
            let read = pipe.consume(id, generation: generation) { chunk, waited in
                // A song's first chunk or the end of the queue is news: waiting for it is no gap.
                if waited, midSong, !chunk.first, !chunk.endOfQueue,
                    songSeconds <= Double(MonotonicClock.now() &- songBegan) / 1e9
                {
                    ranDry += 1
                }
                play(chunk)
            }
            switch read {
            case .chunk:
                continue
            case .cleared(let next):
                generation = next
                reportRanDry()
                midSong = false
                if openFormat != nil { output.cancel() }
                converter?.reset()
                if clock {
                    heardFrames.store(0, ordering: .relaxed)
                    heardAt.store(0, ordering: .relaxed)
                }
            case .closed:
                closeDevice()
                return
            }
        }
        closeDevice()
    }

    private var clock: Bool { isClock.load(ordering: .relaxed) }

    /// Tells the core how often this output ran dry during the song that just ended.
    private func reportRanDry() {
        guard ranDry > 0 else { return }
        events(.ranDry(output: name, times: ranDry))
        ranDry = 0
    }

    private func play(_ chunk: Chunk) {
        if chunk.first || chunk.endOfQueue {
            reportRanDry()
            songBegan = MonotonicClock.now()
            songSeconds = 0
        }
        if !midSong { songBegan = MonotonicClock.now() }
        midSong = !chunk.endOfQueue
        songSeconds += Double(chunk.count / max(1, chunk.format.frameBytes)) / Double(max(1, chunk.format.sampleRate))
        guard !deviceFailed else { return }
        if chunk.endOfQueue {
            if openFormat != nil {
                converter?.flush(volume: volume.load(ordering: .relaxed)) { pcm in try? output.play(pcm) }
                output.drain()
            }
            closeDevice()
            if clock { events(.finished) }
            return
        }
        if sourceFormat != chunk.format || openFormat == nil {
            reopen(for: chunk.format)
            if deviceFailed { return }
        }
        if chunk.first {
            output.songStarted(title: chunk.streamTitle)
            playingToken.store(chunk.token, ordering: .relaxed)
            sampleRate.store(chunk.format.sampleRate, ordering: .relaxed)
            if clock { events(.started(token: chunk.token)) }
        }
        if clock {
            if chunk.first || heardAt.load(ordering: .relaxed) == 0 { heardFrames.store(chunk.startFrame, ordering: .relaxed) }
            bitRate.store(chunk.bitRate, ordering: .relaxed)
        }
        guard let converter, openFormat != nil, chunk.count > 0 else { return }
        chunk.bytes.withUnsafeBytes { raw in
            converter.convert(
                UnsafeRawBufferPointer(rebasing: raw[..<chunk.count]), volume: volume.load(ordering: .relaxed)
            ) { pcm in
                do {
                    try output.play(pcm)
                } catch {
                    fail((error as? OutputError)?.message ?? "\(error)")
                }
            }
        }
        if deviceFailed { return }
        if clock {
            let frames = Int64(chunk.count / chunk.format.frameBytes)
            let delay = Int64(openFormat == nil ? 0 : output.delayFrames) * Int64(chunk.format.sampleRate)
                / Int64(max(openFormat?.sampleRate ?? chunk.format.sampleRate, 1))
            heardFrames.store(max(chunk.startFrame, chunk.startFrame + frames - delay), ordering: .relaxed)
            writtenUntil.store(chunk.startFrame + frames, ordering: .relaxed)
            heardAt.store(MonotonicClock.now(), ordering: .relaxed)
        }
    }

    private func reopen(for format: AudioFormat) {
        let wanted = fixedFormat.map { pattern in
            AudioFormat(
                sampleRate: pattern.sampleRate ?? format.sampleRate, sample: pattern.sample ?? format.sample,
                channels: pattern.channels ?? format.channels)
        } ?? format
        if let openFormat, openFormat == wanted, !deviceFailed {
            // The device stays open: the last milliseconds the resampler holds of the song
            // before are played, not dropped.
            converter?.flush(volume: volume.load(ordering: .relaxed)) { pcm in try? output.play(pcm) }
            sourceFormat = format
            converter = FilterChain(from: format, to: openFormat, rates: rates, filters: filters, sound: sound)
            return
        }
        if openFormat != nil {
            output.drain()
            output.close()
        }
        do {
            let opened = try output.open(wanted)
            openFormat = opened
            // The sound stage starts from silence on a device opened anew.
            sound.reset()
            converter = FilterChain(from: format, to: opened, rates: rates, filters: filters, sound: sound)
        } catch {
            openFormat = nil
            fail(error.message)
            return
        }
        sourceFormat = format
        formatBox.withLock { $0 = format }
    }

    /// The device failed: this worker stops reading (so it neither keeps time nor holds up the
    /// pipe) and says so; the engine moves the clock on and the core decides what to show.
    private func fail(_ message: String) {
        closeDevice()
        deviceFailed = true
        gate.withLock { running = false }
        pipe.removeConsumer(id)
        events(.outputFailed(name: name, message: message))
        failed(id)
    }

    private func closeDevice() {
        if openFormat != nil { output.close() }
        openFormat = nil
        sourceFormat = nil
        converter = nil
    }
}

/// An output handed to the pipe's clear handler; `interrupt()` is the one call that is safe
/// from another thread.
private final class Interruptible: @unchecked Sendable {
    let output: any AudioOutput
    init(_ output: any AudioOutput) { self.output = output }
}
