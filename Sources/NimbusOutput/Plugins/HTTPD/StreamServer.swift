import Foundation
import NimbusSupport
import Glibc

/// The httpd output's listeners: its own thread polls the listening socket and every
/// listener's socket, never blocking playback. Each listener has its own queue of whole
/// encoder chunks; one that falls more than `backlog` bytes behind loses its oldest chunks
/// (a gap for that listener alone) instead of slowing the player or the others. Listeners
/// that asked with `Icy-MetaData: 1` get `StreamTitle` every `icy-metaint` bytes. A listener
/// that joins a running stream first gets its last second and a half (Icecast's burst on
/// connect; MPD sends nothing old): a browser starts playing at once instead of waiting to
/// fill its buffer at real time, and does not run dry right after starting.
final class StreamServer: @unchecked Sendable {
    // Invariant: everything below `lock` is only touched with it held; sockets are written by
    // the server thread only.
    private let lock = NSLock()
    private var listeners: [Listener] = []
    private var stream: (contentType: String, header: [UInt8])?
    private var title = ""
    /// The newest encoder chunks, whole (pages, for Ogg), with the seconds each holds.
    private var recent: [(bytes: [UInt8], seconds: Double)] = []
    private var recentSeconds = 0.0
    static let burstSeconds = 1.5
    private var titleVersion = 0
    private var stopped = false

    private let listenFDs: [Int32]
    /// A pipe that interrupts the poll when there is something to send.
    private let wakeReader: Int32
    private let wakeFD: Int32
    private let maxClients: Int
    private let name: String
    private let genre: String?
    private let website: String?
    static let metaInterval = 8192
    static let backlog = 1 << 20

    init(address: String, port: Int, maxClients: Int, name: String, genre: String?, website: String?) throws(OutputError) {
        self.maxClients = maxClients
        self.name = name
        self.genre = genre
        self.website = website
        // Bound as the MPD port is: `any` is both families, a name every address it has.
        do {
            listenFDs = try ListeningSocket.open(address: address.isEmpty ? "any" : address, port: port).map(\.fd)
        } catch {
            throw OutputError("httpd: cannot listen on \(address):\(port): \(error.description)")
        }
        var ends: [Int32] = [0, 0]
        guard pipe(&ends) == 0 else {
            for fd in listenFDs { close(fd) }
            throw OutputError("httpd: pipe: \(String(cString: strerror(errno)))")
        }
        for end in ends {
            _ = fcntl(end, F_SETFL, fcntl(end, F_GETFL) | O_NONBLOCK)
            _ = fcntl(end, F_SETFD, FD_CLOEXEC)
        }
        wakeReader = ends[0]
        wakeFD = ends[1]
        DaemonThread.start(name: "httpd-\(port)") { [self] in run() }
    }

    /// A stream begins (the output opened): listeners waiting get the answer and the header.
    func start(contentType: String, header: [UInt8]) {
        lock.withLock {
            stream = (contentType, header)
            recent = []
            recentSeconds = 0
            for listener in listeners where listener.state == .waiting { begin(listener) }
        }
        wake()
    }

    /// The stream ended (the output closed): listeners are let go, as MPD does.
    func end() {
        lock.withLock {
            stream = nil
            recent = []
            recentSeconds = 0
            for listener in listeners where listener.state == .streaming { listener.state = .closing }
        }
        wake()
    }

    /// `seconds`: how much audio the bytes hold, for the burst a new listener gets.
    func broadcast(_ bytes: [UInt8], seconds: Double = 0) {
        guard !bytes.isEmpty else { return }
        lock.withLock {
            for listener in listeners where listener.state == .streaming { listener.enqueue(bytes) }
            recent.append((bytes, seconds))
            recentSeconds += seconds
            while let oldest = recent.first, recentSeconds - oldest.seconds >= Self.burstSeconds {
                recentSeconds -= oldest.seconds
                recent.removeFirst()
            }
        }
        wake()
    }

    func setTitle(_ text: String) {
        lock.withLock {
            title = text
            titleVersion += 1
        }
    }

    private func wake() {
        var one: UInt8 = 1
        _ = write(wakeFD, &one, 1)
    }

    // MARK: the server thread

    private func run() {
        while true {
            var fds = [pollfd(fd: wakeReader, events: Int16(POLLIN), revents: 0)]
            fds += listenFDs.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
            let first = fds.count
            let watched = lock.withLock { () -> [Listener] in
                for listener in listeners {
                    var events = Int16(0)
                    if listener.state == .reading || listener.state == .waiting { events |= Int16(POLLIN) }
                    if listener.hasOutput { events |= Int16(POLLOUT) }
                    fds.append(pollfd(fd: listener.fd, events: events, revents: 0))
                }
                return listeners
            }
            _ = poll(&fds, nfds_t(fds.count), 1000)
            if fds[0].revents != 0 {
                var scratch = [UInt8](repeating: 0, count: 256)
                _ = scratch.withUnsafeMutableBytes { read(wakeReader, $0.baseAddress, $0.count) }
            }
            for (index, fd) in listenFDs.enumerated() where fds[index + 1].revents & Int16(POLLIN) != 0 { accept(from: fd) }
            lock.withLock {
                for (index, listener) in watched.enumerated() {
                    let revents = fds[index + first].revents
                    if revents & Int16(POLLIN) != 0 { readRequest(listener) }
                    if revents & Int16(POLLERR | POLLHUP) != 0 { listener.state = .closed }
                    if listener.state != .closed { flush(listener) }
                }
                for listener in listeners where listener.state == .closed || (listener.state == .closing && !listener.hasOutput) {
                    close(listener.fd)
                    listener.state = .closed
                }
                listeners.removeAll { $0.state == .closed }
            }
        }
    }

    private func accept(from listenFD: Int32) {
        while true {
            let fd = Glibc.accept(listenFD, nil, nil)
            guard fd >= 0 else { return }
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
            var yes: Int32 = 1
            setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &yes, socklen_t(MemoryLayout<Int32>.size))
            lock.withLock {
                if maxClients > 0, listeners.count >= maxClients {
                    let busy = Array("HTTP/1.1 503 Service Unavailable\r\nConnection: close\r\nContent-Length: 0\r\n\r\n".utf8)
                    _ = busy.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                    close(fd)
                } else {
                    listeners.append(Listener(fd: fd))
                }
            }
        }
    }

    /// Reads the request until its blank line; then answers (or waits for a stream).
    private func readRequest(_ listener: Listener) {
        var buffer = [UInt8](repeating: 0, count: 4096)
        let count = buffer.withUnsafeMutableBytes { recv(listener.fd, $0.baseAddress, $0.count, 0) }
        if count == 0 || (count < 0 && errno != EAGAIN) {
            listener.state = .closed
            return
        }
        guard count > 0, listener.state == .reading else { return }
        listener.request += buffer[..<count]
        guard listener.request.count < 16384 else {
            listener.state = .closed
            return
        }
        let text = String(decoding: listener.request, as: UTF8.self)
        guard let end = text.range(of: "\r\n\r\n") ?? text.range(of: "\n\n") else { return }
        let lines = text[..<end.lowerBound].split(whereSeparator: { $0 == "\r\n" || $0 == "\n" })
        let method = lines.first?.split(separator: " ").first.map(String.init) ?? ""
        listener.wantsMetadata = lines.dropFirst().contains {
            $0.lowercased().hasPrefix("icy-metadata:") && $0.split(separator: ":", maxSplits: 1).last?.trimmingCharacters(in: .whitespaces) == "1"
        }
        guard method == "GET" || method == "HEAD" else {
            listener.queueRaw(Array("HTTP/1.1 405 Method Not Allowed\r\nConnection: close\r\nContent-Length: 0\r\n\r\n".utf8))
            listener.state = .closing
            return
        }
        listener.headOnly = method == "HEAD"
        listener.state = .waiting
        if stream != nil { begin(listener) }
    }

    /// Sends the answer's headers and the stream header; from then on the listener streams.
    private func begin(_ listener: Listener) {
        guard let stream else { return }
        var headers = "HTTP/1.1 200 OK\r\nContent-Type: \(stream.contentType)\r\nConnection: close\r\nPragma: no-cache\r\n"
            + "Cache-Control: no-cache, no-store\r\nAccess-Control-Allow-Origin: *\r\nicy-name: \(name)\r\n"
        if let genre { headers += "icy-genre: \(genre)\r\n" }
        if let website { headers += "icy-url: \(website)\r\n" }
        if listener.wantsMetadata { headers += "icy-metaint: \(Self.metaInterval)\r\n" }
        listener.queueRaw(Array((headers + "\r\n").utf8))
        if listener.headOnly {
            listener.state = .closing
            return
        }
        listener.state = .streaming
        listener.enqueue(stream.header)
        for chunk in recent { listener.enqueue(chunk.bytes) }
    }

    /// Writes what the socket takes now, ICY blocks interleaved every `metaInterval` bytes.
    private func flush(_ listener: Listener) {
        while true {
            if listener.staged.isEmpty {
                guard listener.stage(title: title, version: titleVersion, interval: Self.metaInterval) else { return }
            }
            let sent = listener.staged[listener.stagedOffset...].withUnsafeBytes {
                send(listener.fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL | MSG_DONTWAIT))
            }
            if sent < 0 {
                if errno != EAGAIN && errno != EINTR { listener.state = .closed }
                return
            }
            listener.stagedOffset += sent
            if listener.stagedOffset < listener.staged.count { return }
            listener.staged.removeAll(keepingCapacity: true)
            listener.stagedOffset = 0
        }
    }
}

/// One connected listener (touched under the server's lock only).
final class Listener {
    enum State { case reading, waiting, streaming, closing, closed }
    let fd: Int32
    var state = State.reading
    var request: [UInt8] = []
    var wantsMetadata = false
    var headOnly = false
    /// Headers, sent as they are (no ICY blocks inside them).
    private var raw: [UInt8] = []
    /// Whole encoder chunks not sent yet.
    private var chunks: [[UInt8]] = []
    private var chunkOffset = 0
    private var queued = 0
    /// Bytes ready for the socket now, and how far they went.
    var staged: [UInt8] = []
    var stagedOffset = 0
    private var untilMetadata = StreamServer.metaInterval
    private var sentVersion = -1

    init(fd: Int32) { self.fd = fd }

    var hasOutput: Bool { !raw.isEmpty || !chunks.isEmpty || stagedOffset < staged.count }

    func queueRaw(_ bytes: [UInt8]) { raw += bytes }

    /// A slow listener loses its oldest chunks, never a part of one.
    func enqueue(_ bytes: [UInt8]) {
        chunks.append(bytes)
        queued += bytes.count
        while queued > StreamServer.backlog, chunks.count > 1 {
            queued -= chunks.removeFirst().count - (chunkOffset > 0 ? chunkOffset : 0)
            chunkOffset = 0
        }
    }

    /// Moves the next bytes into `staged`; false when there is nothing to send.
    func stage(title: String, version: Int, interval: Int) -> Bool {
        if !raw.isEmpty {
            staged = raw
            raw = []
            stagedOffset = 0
            return true
        }
        guard state == .streaming || state == .closing, !chunks.isEmpty else { return false }
        stagedOffset = 0
        while staged.count < 65536, !chunks.isEmpty {
            let chunk = chunks[0]
            var take = chunk.count - chunkOffset
            if wantsMetadata { take = min(take, untilMetadata) }
            staged += chunk[chunkOffset..<(chunkOffset + take)]
            chunkOffset += take
            queued -= take
            if chunkOffset == chunk.count {
                chunks.removeFirst()
                chunkOffset = 0
            }
            guard wantsMetadata else { continue }
            untilMetadata -= take
            if untilMetadata == 0 {
                staged += metadataBlock(title: title, version: version)
                untilMetadata = interval
            }
        }
        return !staged.isEmpty
    }

    /// `StreamTitle='…';` padded to 16-byte units after its length byte; one zero byte when
    /// the title is unchanged since this listener last got it.
    private func metadataBlock(title: String, version: Int) -> [UInt8] {
        guard version != sentVersion else { return [0] }
        sentVersion = version
        var text = Array("StreamTitle='\(title.replacingOccurrences(of: "'", with: "’"))';".utf8)
        if text.count > 255 * 16 { text = Array(text.prefix(255 * 16)) }
        let units = (text.count + 15) / 16
        return [UInt8(units)] + text + [UInt8](repeating: 0, count: units * 16 - text.count)
    }
}
