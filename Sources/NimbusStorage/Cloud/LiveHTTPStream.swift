import Foundation
import NimbusSupport
import NimbusInput
import Synchronization

/// A stream without a length — internet radio — read once, front to back, by a transfer on its
/// own thread into a bounded buffer (about ten seconds of a 192 kbit/s stream). Nothing is
/// cached: there is nothing to replay. The decoder's reads wait for bytes, and a command
/// breaks such a wait as for a cached file (`ReadInterrupt`); closing the stream ends the
/// transfer. It asks for ICY metadata: the station's `icy-name` and each `StreamTitle` become
/// `streamTags`, the metadata itself never reaches the decoder. A station that drops the
/// connection is called again (after 1, 2, 4 … 10 s, six times running at most) instead of
/// the song ending, or silence.
final class LiveHTTPStream: NimbusInput.InputStream {
    let uri: String
    let mimeType: String?
    private(set) var position: Int64 = 0
    var size: Int64? { nil }
    var isSeekable: Bool { false }
    private let buffer = LiveBuffer(capacity: 256 << 10)
    private let tags = SharedTags()

    var streamTags: StreamTags? { tags.value.withLock { $0 } }

    static let reconnects = 6

    init(url: String, mimeType: String?, pool: HTTPSessionPool, what: String) {
        uri = url
        self.mimeType = mimeType
        let buffer = self.buffer
        let tags = self.tags
        DaemonThread.start(name: "live-stream") {
            var failures = 0
            var delay = 1.0
            var connected = false
            while true {
                var failure: String?
                var received = false
                var parser: ICYParser?
                var request = HTTPRequest(url: url)
                request.headers.append(("Icy-MetaData", "1"))
                do throws(HTTPError) {
                    let response = try pool.withSession { session throws(HTTPError) in
                        try session.perform(
                            request,
                            onResponse: { response in
                                if let interval = response[header: "icy-metaint"].flatMap({ Int($0.trimmingCharacters(in: .whitespaces)) }), interval > 0 {
                                    parser = ICYParser(interval: interval)
                                }
                                if let name = response[header: "icy-name"], !name.isEmpty {
                                    tags.value.withLock { $0 = StreamTags(name: name, title: $0?.title) }
                                }
                                return true
                            }
                        ) { chunk in
                            received = true
                            guard var icy = parser else { return buffer.push(chunk) }
                            defer { parser = icy }
                            return icy.feed(chunk, audio: { buffer.push($0) }) { title in
                                tags.value.withLock { $0 = StreamTags(name: $0?.name, title: title) }
                            }
                        }
                    }
                    if !response.isSuccess { failure = "\(what): HTTP \(response.status)" }
                } catch {
                    if error.kind != .cancelled { failure = "\(what): \(error.message)" }
                }
                if buffer.isClosed { break }
                // A station that never answered is an error at once; one that played and
                // dropped is called again.
                if !connected && !received {
                    buffer.finish(failure ?? "\(what): the stream ended")
                    return
                }
                connected = true
                if received {
                    failures = 0
                    delay = 1
                } else {
                    failures += 1
                }
                guard failures < Self.reconnects, buffer.wait(seconds: delay) else {
                    buffer.finish(failure ?? "\(what): the stream ended")
                    return
                }
                delay = min(delay * 2, 10)
            }
            buffer.finish(nil)
        }
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

/// What the transfer thread learns of the station, read by the decoder thread.
private final class SharedTags: Sendable {
    let value = Mutex<StreamTags?>(nil)
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

    var isClosed: Bool { condition.withLock { closed } }

    /// Sleeps before a reconnection; false when the reader went away meanwhile.
    func wait(seconds: Double) -> Bool {
        condition.withLock {
            let end = Date().addingTimeInterval(seconds)
            while !closed, condition.wait(until: end) {}
            return !closed
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
