import CLinux
import Glibc
import NimbusProtocol
import NimbusSupport

/// Socket side of a client: non-blocking reads into the session's line buffer, one write per
/// batch of responses, backpressure by not reading while output is unsent, and the timeout.
extension Client {
    func start(greeting: String) {
        output.line(greeting)
        flush()
        armTimeout(after: context.settings.connectionTimeout)
    }

    func handleEvents(_ events: UInt32) {
        if events & EPOLLOUT.rawValue != 0 { writePending() }
        if isClosed { return }
        if session.isAwaitingDeferred {
            // Not reading until the deferred answer is out; a peer that hung up is gone.
            if events & (EPOLLHUP.rawValue | EPOLLERR.rawValue) != 0 { closeNow() }
            return
        }
        if events & (EPOLLIN.rawValue | EPOLLRDHUP.rawValue | EPOLLHUP.rawValue | EPOLLERR.rawValue) != 0,
            !writeBlocked
        {
            readAvailable()
        }
    }

    private func readAvailable() {
        while !isClosed {
            var free = 0
            let fd = self.fd
            let (fits, received) = session.receive { buffer in
                free = buffer.count
                return recv(fd, buffer.baseAddress!, buffer.count, 0)
            }
            guard fits else {
                context.logger.warning("[\(address)] input buffer full of unanswered lines; closing")
                closeNow()
                return
            }
            if received == 0 {
                // Peer closed: answer what already arrived, then go.
                closeAfterFlush = true
                flush()
                return
            }
            if received < 0 {
                if errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR { closeNow() }
                return
            }
            processInput()
            // A short read drained the socket: epoll will say when more arrives, which saves
            // a recv that would only return EAGAIN on every request.
            if writeBlocked || session.isAwaitingDeferred || received < free { return }
        }
    }

    /// Sends everything in `output`: directly when nothing is queued, else behind the queue.
    func flush() {
        guard !isClosed else { return }
        if !output.isEmpty {
            if unsent.isEmpty {
                unsent = output.take()
                unsentOffset = 0
            } else {
                unsent.append(contentsOf: output.take())
            }
        }
        writePending()
    }

    func writePending() {
        while unsentOffset < unsent.count {
            let written = unsent.withUnsafeBytes { raw in
                send(fd, raw.baseAddress! + unsentOffset, raw.count - unsentOffset, Int32(MSG_NOSIGNAL))
            }
            if written < 0 {
                if errno == EAGAIN || errno == EWOULDBLOCK {
                    if !writeBlocked { reactor.change(fd: fd, interest: .write) }
                    writeBlocked = true
                    session.outputBlocked = true
                    return
                }
                if errno == EINTR { continue }
                closeNow()
                return
            }
            unsentOffset += written
        }
        let wasBlocked = writeBlocked
        writeBlocked = false
        session.outputBlocked = false
        if unsent.count >= Heap.burstBytes { Heap.returnFreeMemorySoon() }
        unsent = []
        unsentOffset = 0
        if closeAfterFlush {
            closeNow()
            return
        }
        if wasBlocked {
            guard !session.isAwaitingDeferred else { return reactor.change(fd: fd, interest: []) }
            reactor.change(fd: fd, interest: .read)
            // Lines that arrived while we were blocked are still in the buffer.
            processInput()
        }
    }

    func closeNow() {
        guard !isClosed else { return }
        isClosed = true
        if let timeoutTimer { reactor.cancel(timeoutTimer) }
        server.remove(self)
        Glibc.close(fd)
    }

    /// One timer per client that re-arms itself instead of being rescheduled on every command,
    /// so busy clients cost no timer churn. Idle clients are exempt, as in MPD.
    private func armTimeout(after seconds: Int) {
        // Strong captures: a weak reference would give every Client a refcount side table and
        // make each retain on the command path slow; closeNow cancels the timer instead.
        timeoutTimer = reactor.schedule(after: .seconds(seconds)) { self.timeoutFired() }
    }

    private func timeoutFired() {
        guard !isClosed else { return }
        let limit = UInt64(context.settings.connectionTimeout) * 1_000_000_000
        let silent = MonotonicClock.now() - session.lastActivity
        if session.isExemptFromTimeout || silent < limit {
            let remaining = session.isExemptFromTimeout ? limit : limit - silent
            timeoutTimer = reactor.schedule(after: .nanoseconds(Int64(remaining))) { self.timeoutFired() }
            return
        }
        context.logger.info("[\(address)] timeout")
        closeNow()
    }
}
