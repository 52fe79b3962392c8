import Foundation
import NimbusModel
import NimbusOutput
import Synchronization

/// One output's thread: takes chunks from the pipe, opens the device for their format,
/// converts, applies software volume and plays. The clock output also reports song starts
/// and the end of the queue, and its position is the elapsed time clients see.
final class OutputWorker: @unchecked Sendable {
    // Invariant: `output`, `converter` and `openFormat` belong to the worker thread; shared
    // settings are atomics; `gate` (lock + condition) only guards pause/enable waits.
    let id: Int
    let name: String
    private let output: any AudioOutput
    private let fixedFormat: AudioFormatPattern?
    private let pipe: MusicPipe
    private let events: @Sendable (PlayerEvent) -> Void
    private let gate = NSCondition()
    private var paused = false
    private var running = true
    private var openFormat: AudioFormat?
    private var sourceFormat: AudioFormat?
    private var converter: PCMConverter?
    private var deviceFailed = false
    /// 0…100, read for every chunk (software mixer); 100 means unity.
    let volume = Atomic<Int>(100)
    let isClock: Bool
    /// Clock output only: the song heard now and how far into it.
    let playingToken = Atomic<UInt64>(0)
    let heardFrames = Atomic<Int64>(0)
    let sampleRate = Atomic<UInt32>(44100)
    let bitRate = Atomic<Int>(0)
    private let formatBox = Mutex<AudioFormat?>(nil)

    init(
        id: Int, name: String, output: any AudioOutput, fixedFormat: AudioFormatPattern?, isClock: Bool, pipe: MusicPipe,
        events: @escaping @Sendable (PlayerEvent) -> Void
    ) {
        self.id = id
        self.name = name
        self.output = output
        self.fixedFormat = fixedFormat
        self.isClock = isClock
        self.pipe = pipe
        self.events = events
        // The output itself, not a weak self: a weak reference gives the worker a refcount side
        // table, and `status` retains the clock worker, so every status would pay for it.
        let interruptible = Interruptible(output)
        pipe.addConsumer(id) { interruptible.output.interrupt() }
        let thread = Thread { [self] in run() }
        thread.name = "output-\(name)"
        thread.start()
    }

    var currentFormat: AudioFormat? { formatBox.withLock { $0 } }

    func setPaused(_ value: Bool) {
        gate.withLock {
            paused = value
            gate.broadcast()
        }
        pipe.wakeAll()
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
                gate.lock()
                while paused && running { gate.wait() }
                gate.unlock()
                if held { output.resume() }
            } else {
                gate.unlock()
            }
            guard gate.withLock({ running }) else { break }
            let read = pipe.consume(id, generation: generation) { chunk in play(chunk) }
            switch read {
            case .chunk:
                continue
            case .cleared(let next):
                generation = next
                if openFormat != nil { output.cancel() }
                converter?.reset()
                if isClock { heardFrames.store(0, ordering: .relaxed) }
            case .closed:
                closeDevice()
                return
            }
        }
        closeDevice()
    }

    private func play(_ chunk: Chunk) {
        if chunk.endOfQueue {
            if openFormat != nil { output.drain() }
            closeDevice()
            if isClock { events(.finished) }
            return
        }
        if sourceFormat != chunk.format || (openFormat == nil && !deviceFailed) {
            reopen(for: chunk.format)
        }
        if isClock && chunk.first {
            playingToken.store(chunk.token, ordering: .relaxed)
            sampleRate.store(chunk.format.sampleRate, ordering: .relaxed)
            events(.started(token: chunk.token))
        }
        if isClock {
            heardFrames.store(chunk.startFrame, ordering: .relaxed)
            bitRate.store(chunk.bitRate, ordering: .relaxed)
        }
        guard let converter, openFormat != nil else { return }
        chunk.bytes.withUnsafeBytes { raw in
            converter.convert(UnsafeRawBufferPointer(rebasing: raw[..<chunk.count]), volume: volume.load(ordering: .relaxed)) { pcm in
                do {
                    try output.play(pcm)
                } catch {
                    events(.outputFailed(name: name, message: (error as? OutputError)?.message ?? "\(error)"))
                    closeDevice()
                    deviceFailed = true
                }
            }
        }
        if isClock {
            let frames = Int64(chunk.count / chunk.format.frameBytes)
            let delay = Int64(openFormat == nil ? 0 : output.delayFrames) * Int64(chunk.format.sampleRate)
                / Int64(max(openFormat?.sampleRate ?? chunk.format.sampleRate, 1))
            heardFrames.store(max(chunk.startFrame, chunk.startFrame + frames - delay), ordering: .relaxed)
        }
    }

    private func reopen(for format: AudioFormat) {
        let wanted = fixedFormat.map { pattern in
            AudioFormat(
                sampleRate: pattern.sampleRate ?? format.sampleRate, sample: pattern.sample ?? format.sample,
                channels: pattern.channels ?? format.channels)
        } ?? format
        if let openFormat, openFormat == wanted, !deviceFailed {
            sourceFormat = format
            converter = PCMConverter(from: format, to: openFormat)
            return
        }
        if openFormat != nil {
            output.drain()
            output.close()
        }
        do {
            let opened = try output.open(wanted)
            openFormat = opened
            converter = PCMConverter(from: format, to: opened)
            deviceFailed = false
        } catch {
            openFormat = nil
            converter = nil
            deviceFailed = true
            events(.outputFailed(name: name, message: error.message))
        }
        sourceFormat = format
        formatBox.withLock { $0 = format }
    }

    private func closeDevice() {
        if openFormat != nil { output.close() }
        openFormat = nil
        sourceFormat = nil
        converter = nil
        deviceFailed = false
    }
}

/// An output handed to the pipe's clear handler; `interrupt()` is the one call that is safe
/// from another thread.
private final class Interruptible: @unchecked Sendable {
    let output: any AudioOutput
    init(_ output: any AudioOutput) { self.output = output }
}
