import Foundation

/// A request under an API prefix (`/rest/`), handed whole to the API's handler: the web
/// server knows nothing of what the API means, only how to carry it. The query string and
/// the body carry credentials, so neither is ever logged here.
public struct APIRequest: Sendable {
    public var method: String
    /// The path without the query (`/rest/ping.view`).
    public var path: String
    /// The arguments of the query string and of a form-encoded POST body, in order, decoded;
    /// a name may come more than once (`songIdToAdd`).
    public var arguments: [(name: String, value: String)]
    /// `Range`, `If-None-Match`, `User-Agent` as sent (lower-case names).
    public var headers: [String: String]
    /// The peer's address, for slowing failed sign-ins.
    public var peer: String

    public init(method: String, path: String, arguments: [(name: String, value: String)], headers: [String: String], peer: String) {
        self.method = method
        self.path = path
        self.arguments = arguments
        self.headers = headers
        self.peer = peer
    }
}

/// The API's answer: a status, headers, and the body — bytes at hand, or a stream a worker
/// fills while the connection takes it.
public struct APIAnswer: Sendable {
    public enum Body: Sendable {
        case bytes([UInt8])
        /// `length` bytes the stream will bring (the `Content-Length`).
        case stream(APIStream, length: Int64)
        /// As many bytes as the stream brings, in HTTP/1.1 chunks (a transcode being made:
        /// its length is known only at its end).
        case chunked(APIStream)

        var stream: APIStream? {
            switch self {
            case .bytes: nil
            case .stream(let stream, _), .chunked(let stream): stream
            }
        }
    }

    public var status: Int
    public var type: String
    /// Header lines as `name:` and value.
    public var headers: [(String, String)]
    public var body: Body
    /// A HEAD request: the head only (a stream is then cancelled at once).
    public var headOnly = false

    public init(status: Int, type: String, headers: [(String, String)] = [], body: Body) {
        self.status = status
        self.type = type
        self.headers = headers
        self.body = body
    }
}

/// Called on the web thread; answers (from any thread, later) through the closure, once.
public typealias APIHandler = @Sendable (APIRequest, @escaping @Sendable (APIAnswer) -> Void) -> Void

/// Something the API's threads tell the web thread.
enum APIEvent: Sendable {
    case answer(connection: UInt, token: UInt64, APIAnswer)
    /// A stream has bytes (or ended) for a connection waiting on it.
    case data(connection: UInt, token: UInt64)
}

/// A body filled by a worker thread and drained by the web thread, bounded in between: a
/// client that stops reading stops its worker (after `stallLimit` seconds it gives up), and
/// a client that goes away cancels it. Several phones streaming at once each hold at most
/// `capacity` bytes here.
public final class APIStream: @unchecked Sendable {
    // Invariant: every `var` is only touched with `condition` locked.
    private let condition = NSCondition()
    private var chunks: [[UInt8]] = []
    private var buffered = 0
    private var ended = false
    private var cancelled = false
    private var consumerWaiting = false
    private var wake: (@Sendable () -> Void)?
    /// A local file's bytes the web thread sends itself (`sendFile`), and how far it got.
    private var file: (fd: Int32, offset: Int64, end: Int64)?
    let capacity: Int
    let stallLimit: Double

    public init(capacity: Int = 512 * 1024, stallLimit: Double = 60) {
        self.capacity = capacity
        self.stallLimit = stallLimit
    }

    /// Worker side: adds bytes, waiting while the buffer is full. False: stop (the client
    /// went away or stopped reading for too long).
    public func write(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard bytes.count > 0 else { return !isCancelled }
        condition.lock()
        let deadline = Date().addingTimeInterval(stallLimit)
        while buffered >= capacity, !cancelled {
            if !condition.wait(until: deadline) {
                cancelled = true
                break
            }
        }
        guard !cancelled else {
            condition.unlock()
            return false
        }
        chunks.append(Array(bytes))
        buffered += bytes.count
        let notify = consumerWaiting ? wake : nil
        consumerWaiting = false
        condition.unlock()
        notify?()
        return true
    }

    /// Worker side: nothing more comes (also after a failure: the connection then closes
    /// short of its length, which a client sees as the error it is).
    public func finish() {
        condition.lock()
        ended = true
        let notify = consumerWaiting ? wake : nil
        consumerWaiting = false
        condition.unlock()
        notify?()
    }

    public var isCancelled: Bool { condition.withLock { cancelled } }

    /// Web side: the client went away (or everything was sent).
    func cancel() {
        condition.withLock {
            cancelled = cancelled || (file.map { $0.offset < $0.end } ?? true)
            chunks = []
            buffered = 0
            condition.broadcast()
        }
    }

    func attach(wake: @escaping @Sendable () -> Void) { condition.withLock { self.wake = wake } }

    /// Web side: up to `limit` bytes copied into a new buffer after `headroom` bytes left
    /// for libwebsockets' framing (one copy from the worker's chunks to the socket's write),
    /// or nil with the web thread to be woken when some come; `ended` once everything was taken.
    func take(upTo limit: Int, headroom: Int = 0) -> (bytes: [UInt8], count: Int, ended: Bool)? {
        condition.lock()
        defer { condition.unlock() }
        if chunks.isEmpty {
            if ended { return ([], 0, true) }
            consumerWaiting = true
            return nil
        }
        var total = 0
        for chunk in chunks {
            total += chunk.count
            if total >= limit { break }
        }
        let count = min(total, limit)
        var taken = 0
        let out = [UInt8](unsafeUninitializedCapacity: headroom + count) { buffer, initialized in
            while taken < count {
                let first = chunks[0]
                let part = min(first.count, count - taken)
                first.withUnsafeBufferPointer { source in
                    UnsafeMutableRawBufferPointer(rebasing: UnsafeMutableRawBufferPointer(buffer)[(headroom + taken)...])
                        .copyMemory(from: UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(source)[..<part]))
                }
                taken += part
                if part == first.count { chunks.removeFirst() } else { chunks[0] = Array(first[part...]) }
            }
            initialized = headroom + count
        }
        buffered -= count
        condition.broadcast()
        return (out, count, ended && chunks.isEmpty)
    }

    /// Worker side: `range` of a local file goes out with sendfile(2) from the web thread —
    /// no copies through this buffer, as nginx serves a file (1.5 GB/s on loopback instead
    /// of 1.1). Takes `fd` (closed when done); waits until it is sent or the client left, so
    /// the worker still marks how long the phone streams. False: the client went away.
    public func sendFile(fd: Int32, range: Range<Int64>) -> Bool {
        condition.lock()
        guard !cancelled, file == nil, chunks.isEmpty else {
            condition.unlock()
            close(fd)
            return false
        }
        file = (fd, range.lowerBound, range.upperBound)
        let notify = consumerWaiting ? wake : nil
        consumerWaiting = false
        condition.unlock()
        // The disk is read ahead of the socket from here, so that the web thread's sendfile
        // finds the pages in memory instead of waiting on a slow card for them.
        var advised = range.lowerBound
        func advise(from offset: Int64) {
            let until = min(range.upperBound, offset + Self.readAhead)
            guard until > advised else { return }
            _ = posix_fadvise(fd, off_t(advised), off_t(until - advised), POSIX_FADV_WILLNEED)
            advised = until
        }
        advise(from: range.lowerBound)
        notify?()
        condition.lock()
        defer { condition.unlock() }
        while !cancelled, let file, file.offset < file.end {
            if file.offset + Self.readAhead / 2 > advised {
                condition.unlock()
                advise(from: file.offset)
                condition.lock()
                continue
            }
            condition.wait()
        }
        return !cancelled
    }

    /// How far ahead of the socket a file's pages are asked for.
    static let readAhead: Int64 = 8 << 20

    /// Web side: the file to send, where it stands, or nil (bytes come the usual way). Asks
    /// for a wake-up when neither a file nor bytes are there yet.
    func fileToSend() -> (fd: Int32, offset: Int64, end: Int64)? {
        condition.withLock {
            if file == nil, chunks.isEmpty, !ended { consumerWaiting = true }
            return file
        }
    }

    /// Web side: `count` more bytes of the file went out.
    func sent(_ count: Int) {
        condition.withLock {
            guard var current = file else { return }
            current.offset += Int64(count)
            file = current
            condition.broadcast()
        }
    }

    deinit { if let file { close(file.fd) } }
}
