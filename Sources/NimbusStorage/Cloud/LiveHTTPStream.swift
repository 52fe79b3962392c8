import Foundation
import NimbusInput

/// A stream without a length — internet radio — read once, front to back, by a transfer on its
/// own thread into a bounded buffer (about ten seconds of a 192 kbit/s stream). Nothing is
/// cached: there is nothing to replay. The decoder's reads wait for bytes, and a command
/// breaks such a wait as for a cached file (`ReadInterrupt`); closing the stream ends the
/// transfer.
final class LiveHTTPStream: NimbusInput.InputStream {
    let uri: String
    let mimeType: String?
    private(set) var position: Int64 = 0
    var size: Int64? { nil }
    var isSeekable: Bool { false }
    private let buffer = LiveBuffer(capacity: 256 << 10)

    init(url: String, mimeType: String?, pool: HTTPSessionPool, what: String) {
        uri = url
        self.mimeType = mimeType
        let buffer = self.buffer
        let thread = Thread {
            var failure: String?
            do throws(HTTPError) {
                let response = try pool.withSession { session throws(HTTPError) in
                    try session.perform(HTTPRequest(url: url)) { chunk in buffer.push(chunk) }
                }
                if !response.isSuccess { failure = "\(what): HTTP \(response.status)" }
            } catch {
                if error.kind != .cancelled { failure = "\(what): \(error.message)" }
            }
            buffer.finish(failure)
        }
        thread.name = "live-stream"
        thread.start()
    }

    deinit { buffer.close() }

    func read(into target: UnsafeMutableRawBufferPointer) throws(InputError) -> Int {
        let count = try buffer.pop(into: target, interrupt: ReadInterrupt.current)
        position += Int64(count)
        return count
    }

    /// Only forwards, by reading (decoders probe a few bytes ahead and come back rarely).
    func seek(to offset: Int64) throws(InputError) {
        guard offset >= position else { throw InputError("\(uri): a live stream cannot seek back") }
        while position < offset {
            if try read(count: Int(min(4096, offset - position))).isEmpty { return }
        }
    }
}

/// The bytes between the transfer thread and the decoder.
private final class LiveBuffer: @unchecked Sendable {
    // Invariant: every field is only touched with `condition` locked.
    private let condition = NSCondition()
    private var bytes: [UInt8] = []
    private var start = 0
    private let capacity: Int
    private var finished = false
    private var failure: String?
    private var closed = false

    init(capacity: Int) { self.capacity = capacity }

    /// False once the reader is gone: the transfer stops.
    func push(_ chunk: UnsafeRawBufferPointer) -> Bool {
        condition.withLock {
            while !closed && bytes.count - start >= capacity { condition.wait() }
            guard !closed else { return false }
            if start > capacity {
                bytes.removeFirst(start)
                start = 0
            }
            bytes.append(contentsOf: chunk)
            condition.broadcast()
            return true
        }
    }

    func finish(_ failure: String?) {
        condition.withLock {
            finished = true
            self.failure = failure
            condition.broadcast()
        }
    }

    func close() {
        condition.withLock {
            closed = true
            condition.broadcast()
        }
    }

    func pop(into target: UnsafeMutableRawBufferPointer, interrupt: ReadInterrupt?) throws(InputError) -> Int {
        guard target.count > 0 else { return 0 }
        condition.lock()
        defer { condition.unlock() }
        while bytes.count == start && !finished {
            if let interrupt, interrupt.isPending { throw .interrupted }
            // Woken by new bytes, or at least every 100 ms to look at the interrupt.
            _ = condition.wait(until: Date().addingTimeInterval(0.1))
        }
        let count = min(target.count, bytes.count - start)
        if count == 0 {
            if let failure { throw InputError(failure) }
            return 0
        }
        bytes.withUnsafeBytes { source in
            target.baseAddress!.copyMemory(from: source.baseAddress! + start, byteCount: count)
        }
        start += count
        condition.broadcast()
        return count
    }
}
