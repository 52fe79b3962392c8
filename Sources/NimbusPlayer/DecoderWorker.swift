import Foundation
import NimbusDecoder
import NimbusModel

/// The decoder thread: opens songs, decodes them into the pipe, and continues straight into
/// the queued next song when the current one ends, so consecutive songs join without a gap.
///
/// Control arrives through a mailbox (lock plus condition) and is checked between chunks.
final class DecoderWorker: @unchecked Sendable {
    // Invariant: `mailbox` fields are only touched with `condition` locked; `decoder` and the
    // fields below it belong to the decoder thread alone.
    private struct Mailbox {
        var start: PlayItem?
        var next: PlayItem?
        var seekMilliseconds: Int?
        /// Decode this instead of the song in progress, keeping what is already in the pipe
        /// (a queued song was cancelled after its decoding had started); nil item: nothing.
        var replacement: PlayItem??
        var stop = false
        var shutdown = false
        var changed = false
    }

    private let condition = NSCondition()
    private var mailbox = Mailbox()
    private let pipe: MusicPipe
    private let events: @Sendable (PlayerEvent) -> Void

    private var decoder: (any AudioDecoder)?
    private var current: PlayItem?
    private var frame: Int64 = 0
    private var endFrame: Int64?
    private var generation = 0
    private var firstChunk = false

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

    func start(_ item: PlayItem, next: PlayItem?) {
        post {
            $0.start = item
            $0.next = next
            $0.seekMilliseconds = nil
            $0.stop = false
        }
    }

    func setNext(_ item: PlayItem?) {
        post { $0.next = item }
    }

    /// Abandons the song being decoded and continues with `item` (or ends the queue).
    func replaceDecoding(with item: PlayItem?) {
        post { $0.replacement = .some(item) }
    }

    func seek(toMilliseconds milliseconds: Int) {
        post { $0.seekMilliseconds = milliseconds }
    }

    func stop() {
        post {
            $0.stop = true
            $0.start = nil
            $0.seekMilliseconds = nil
        }
    }

    func shutdown() {
        let running = condition.withLock { threadStarted }
        if running { post { $0.shutdown = true } }
        pipe.close()
    }

    /// The token of the song being decoded right now (for cancelling a queued song).
    var decodingToken: UInt64? {
        condition.withLock { decodingTokenStorage }
    }
    private var decodingTokenStorage: UInt64?

    private func post(_ change: (inout Mailbox) -> Void) {
        condition.withLock {
            startThreadIfNeeded()
            change(&mailbox)
            mailbox.changed = true
            condition.broadcast()
        }
        // Wake a producer blocked on a full pipe so it sees the command.
        pipe.wakeAll()
    }

    // MARK: the thread

    private func run() {
        var buffer = [UInt8](repeating: 0, count: MusicPipe.chunkBytes)
        while true {
            guard handleMailbox(waitIfIdle: decoder == nil) else { return }
            guard let decoder, let current else { continue }
            let frameBytes = decoder.format.frameBytes
            var capacity = MusicPipe.chunkBytes / frameBytes * frameBytes
            if let endFrame { capacity = min(capacity, Int(max(0, endFrame - frame)) * frameBytes) }
            var frames = 0
            var failure: String?
            if capacity > 0 {
                do {
                    frames = try buffer.withUnsafeMutableBytes { raw in
                        try decoder.decode(into: UnsafeMutableRawBufferPointer(rebasing: raw[..<capacity]))
                    }
                } catch {
                    failure = (error as? DecoderError)?.message ?? "\(error)"
                }
            }
            if frames == 0 {
                if let failure { events(.failed(token: current.token, message: failure)) }
                advanceToNext()
                continue
            }
            let format = decoder.format
            let startFrame = frame
            let first = firstChunk
            let bitRate = decoder.bitRate
            let produced = pipe.produce(generation: generation) { chunk in
                chunk.bytes.withUnsafeMutableBytes { target in
                    buffer.withUnsafeBytes { target.baseAddress!.copyMemory(from: $0.baseAddress!, byteCount: frames * frameBytes) }
                }
                chunk.count = frames * frameBytes
                chunk.format = format
                chunk.token = current.token
                chunk.startFrame = startFrame
                chunk.first = first
                chunk.endOfQueue = false
                chunk.bitRate = bitRate
            }
            if produced {
                frame += Int64(frames)
                firstChunk = false
            }
            if let failure {
                events(.failed(token: current.token, message: failure))
                advanceToNext()
            }
        }
    }

    /// Applies pending commands; false when the thread should end.
    private func handleMailbox(waitIfIdle: Bool) -> Bool {
        condition.lock()
        while waitIfIdle && !mailbox.changed && decoder == nil {
            condition.wait()
        }
        let box = mailbox
        mailbox.changed = false
        mailbox.start = nil
        mailbox.seekMilliseconds = nil
        mailbox.replacement = nil
        mailbox.stop = false
        condition.unlock()
        if box.shutdown { return false }
        if box.stop {
            decoder = nil
            current = nil
            setDecodingToken(nil)
        }
        if let item = box.start {
            generation = pipe.clear()
            open(item)
        } else if let replacement = box.replacement {
            decoder = nil
            current = nil
            if let item = replacement { open(item) } else { finishQueue() }
        } else if let milliseconds = box.seekMilliseconds, let decoder, let current {
            generation = pipe.clear()
            let target = Int64(milliseconds) * Int64(decoder.format.sampleRate) / 1000
            do {
                try decoder.seek(toFrame: target)
                frame = target
                firstChunk = true
            } catch {
                events(.failed(token: current.token, message: "Seek failed: \(error.message)"))
            }
        }
        return true
    }

    private func open(_ item: PlayItem) {
        var item = item
        while true {
            do {
                let opened = try item.open()
                let target = Int64(item.startMilliseconds) * Int64(opened.format.sampleRate) / 1000
                if target > 0 { try opened.seek(toFrame: target) }
                decoder = opened
                current = item
                frame = target
                endFrame = item.endMilliseconds.map { Int64($0) * Int64(opened.format.sampleRate) / 1000 }
                firstChunk = true
                setDecodingToken(item.token)
                return
            } catch {
                events(.failed(token: item.token, message: (error as? DecoderError)?.message ?? "\(error)"))
                guard let next = takeNext() else {
                    finishQueue()
                    return
                }
                item = next
            }
        }
    }

    /// The current song ended (or broke): continue with the queued next song, gaplessly.
    private func advanceToNext() {
        decoder = nil
        current = nil
        if let next = takeNext() {
            open(next)
        } else {
            finishQueue()
        }
    }

    private func takeNext() -> PlayItem? {
        condition.withLock {
            let next = mailbox.next
            mailbox.next = nil
            return next
        }
    }

    private func finishQueue() {
        decoder = nil
        current = nil
        setDecodingToken(nil)
        _ = pipe.produce(generation: generation) { chunk in
            chunk.count = 0
            chunk.endOfQueue = true
            chunk.first = false
            chunk.token = 0
        }
    }

    private func setDecodingToken(_ token: UInt64?) {
        condition.withLock { decodingTokenStorage = token }
    }
}
