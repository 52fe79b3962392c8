import Foundation
import NimbusModel
import Synchronization

/// One block of decoded PCM on its way from the decoder to the outputs.
struct Chunk {
    var bytes: [UInt8]
    var count = 0
    var format = AudioFormat(sampleRate: 44100, sample: .s16, channels: 2)
    /// Which play of which queue entry this belongs to.
    var token: UInt64 = 0
    /// Frame position in the song of the first frame here.
    var startFrame: Int64 = 0
    /// The first chunk of a song (the outputs report the song change when they reach it).
    var first = false
    /// Nothing follows: the queue ended (count is 0).
    var endOfQueue = false
    var bitRate = 0
    /// With `first`: what stream outputs announce for the song.
    var streamTitle: String?
}

/// The bounded buffer between the decoder thread and the output threads: a ring of
/// preallocated chunks, one write cursor, one read cursor per output. The decoder blocks when
/// the slowest output is a full ring behind; outputs block when they have caught up.
///
/// A `clear` (seek, stop, skip) bumps the generation, which wakes and resets everybody.
final class MusicPipe: @unchecked Sendable {
    // Invariant: every field is read and written with `condition` locked.
    static let chunkBytes = 16384
    private let condition = NSCondition()
    private var slots: [Chunk]
    private var writeSequence = 0
    private var readSequences: [Int: Int] = [:]
    private var clearHandlers: [Int: @Sendable () -> Void] = [:]
    private(set) var generation = 0
    private var closed = false
    /// Who sleeps on `condition`: wake-ups are only sent when someone waits, and a full pipe's
    /// producer only once a quarter of it is free again, so decoding ahead of a fast output
    /// costs few context switches (profiling showed a fifth of the time in futex wake-ups).
    private var producerWaiting = false
    private var consumersWaiting = 0
    /// Where each of the last few songs (plays) began in the pipe: whether an output read any
    /// of one is known even after every chunk of it was read (`dropUnread`).
    private var tokenStarts: [(token: UInt64, sequence: Int)] = []

    /// The slots get their buffers when first written: a megabyte per partition that never
    /// plays (and a daemon that has not played yet) stays unallocated — it was the largest
    /// part of the heap with an empty database (heaptrack).
    init(capacity: Int = 64) {
        slots = Array(repeating: Chunk(bytes: []), count: capacity)
    }

    var capacity: Int { slots.count }

    /// Registers an output; it starts reading at the current write position. `onClear` runs
    /// on the clearing thread, to cut short a wait inside the output.
    func addConsumer(_ id: Int, onClear: (@Sendable () -> Void)? = nil) {
        condition.withLock {
            readSequences[id] = writeSequence
            clearHandlers[id] = onClear
            condition.broadcast()
        }
    }

    func removeConsumer(_ id: Int) {
        condition.withLock {
            readSequences[id] = nil
            clearHandlers[id] = nil
            condition.broadcast()
        }
    }

    /// Fills the next free chunk (waiting for space); false when `generation` moved on.
    func produce(generation expected: Int, _ fill: (inout Chunk) -> Void) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        while !closed, generation == expected, let slowest = readSequences.values.min(), writeSequence - slowest >= slots.count {
            producerWaiting = true
            condition.wait()
            producerWaiting = false
        }
        guard !closed, generation == expected else { return false }
        let index = writeSequence % slots.count
        if slots[index].bytes.count < Self.chunkBytes { slots[index].bytes = [UInt8](repeating: 0, count: Self.chunkBytes) }
        fill(&slots[index])
        let token = slots[index].token
        if !tokenStarts.contains(where: { $0.token == token }) {
            if tokenStarts.count == 8 { tokenStarts.removeFirst() }
            tokenStarts.append((token, writeSequence))
        }
        writeSequence += 1
        // Waiting readers are woken for a song's first chunk, the end of the queue, or once a
        // few chunks are ready: an output that keeps up with decoding then wakes once per four
        // chunks instead of once per chunk.
        if consumersWaiting > 0 {
            let chunk = slots[index]
            let slowest = readSequences.values.min() ?? writeSequence
            if chunk.first || chunk.endOfQueue || writeSequence - slowest >= 4 { condition.broadcast() }
        }
        return true
    }

    enum Read {
        case chunk
        case cleared(generation: Int)
        case closed
    }

    func consume(_ consumer: Int, generation seen: Int, _ body: (Chunk) -> Void) -> Read {
        consume(consumer, generation: seen) { chunk, _ in body(chunk) }
    }

    /// Hands the next chunk for `consumer` to `body`, waiting for one (or for a clear), with
    /// whether the pipe was empty when the reader came for it.
    func consume(_ consumer: Int, generation seen: Int, _ body: (Chunk, _ waited: Bool) -> Void) -> Read {
        condition.lock()
        var waited = false
        while true {
            if closed {
                condition.unlock()
                return .closed
            }
            if generation != seen {
                let current = generation
                condition.unlock()
                return .cleared(generation: current)
            }
            if let sequence = readSequences[consumer], sequence < writeSequence { break }
            waited = true
            consumersWaiting += 1
            condition.wait()
            consumersWaiting -= 1
        }
        let sequence = readSequences[consumer]!
        do {
            let chunk = slots[sequence % slots.count]
            condition.unlock()
            // The slot is not reused until every reader moved past it, and this copy is gone
            // before the cursor moves, so the producer never has to copy the buffer.
            body(chunk, waited)
        }
        condition.withLock {
            if let current = readSequences[consumer], current == sequence, generation == seen {
                readSequences[consumer] = sequence + 1
            }
            if producerWaiting, let slowest = readSequences.values.min(), writeSequence - slowest <= slots.count * 3 / 4 {
                condition.broadcast()
            }
        }
        return .chunk
    }

    /// Drops everything buffered; returns the new generation.
    @discardableResult
    func clear() -> Int {
        let (next, handlers) = condition.withLock {
            generation += 1
            for id in readSequences.keys { readSequences[id] = writeSequence }
            condition.broadcast()
            return (generation, Array(clearHandlers.values))
        }
        for handler in handlers { handler() }
        return next
    }

    /// Removes chunks from the first one of `token` onwards that no output has read yet
    /// (cancelling a queued next song whose decoding already started).
    func truncate(fromToken token: UInt64) -> Bool {
        condition.withLock {
            let oldest = readSequences.values.min() ?? writeSequence
            var sequence = writeSequence - 1
            var boundary: Int?
            while sequence >= oldest, sequence >= writeSequence - slots.count {
                if slots[sequence % slots.count].token == token { boundary = sequence } else if boundary != nil { break }
                sequence -= 1
            }
            guard let boundary else { return true }
            if readSequences.values.contains(where: { $0 > boundary }) { return false }
            writeSequence = boundary
            condition.broadcast()
            return true
        }
    }

    /// Removes the chunks of `token` (the song being decoded, so the last ones written) that
    /// no output has read yet; true when none of it had been read — by the song's first chunk
    /// in the pipe, so a song every output has read to its last chunk counts as heard.
    func dropUnread(ofToken token: UInt64) -> Bool {
        condition.withLock {
            let first = tokenStarts.last { $0.token == token }?.sequence ?? writeSequence
            let read = readSequences.values.max() ?? first
            let boundary = max(first, min(read, writeSequence))
            if boundary < writeSequence {
                writeSequence = boundary
                condition.broadcast()
            }
            return read <= first
        }
    }

    /// Outputs waiting for a chunk right now.
    var waitingConsumers: Int { condition.withLock { consumersWaiting } }

    /// Chunks written and not yet read by the slowest output.
    var buffered: Int {
        condition.withLock { writeSequence - (readSequences.values.min() ?? writeSequence) }
    }

    func close() {
        condition.withLock {
            closed = true
            condition.broadcast()
        }
    }

    /// The producer is about to wait (for a command or for the next song): readers get
    /// whatever is buffered now instead of waiting for a batch.
    func producerPaused() {
        condition.withLock {
            if consumersWaiting > 0 { condition.broadcast() }
        }
    }

    func wakeAll() {
        condition.withLock { condition.broadcast() }
    }
}
