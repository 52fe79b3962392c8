import CWebSockets
import Glibc

/// The page's WebSocket and the MPD session behind it: bytes from the page go to the daemon
/// as they are (MPD command lines), the daemon's answers go to the page as binary messages
/// (lines, and the raw bytes of `albumart` and `readpicture`). A page that stops reading
/// stops the reading from the daemon, whose output limit then ends the session as MPD's does.
extension WebServer {
    /// Bytes waiting for the page beyond which the daemon is not read until the page catches up.
    static let highWater = 512 * 1024
    static let lowWater = 128 * 1024

    func mayOpenSocket(_ wsi: OpaquePointer) -> Bool {
        guard let host = header(wsi, WSI_TOKEN_HOST), settings.hosts.allows(host: host) else {
            logger.warning("refused a WebSocket for another host name")
            return false
        }
        guard settings.hosts.allows(origin: header(wsi, WSI_TOKEN_ORIGIN), host: host) else {
            logger.warning("refused a WebSocket from another site (\(header(wsi, WSI_TOKEN_ORIGIN) ?? ""))")
            return false
        }
        return true
    }

    func opened(_ wsi: OpaquePointer) -> Int32 {
        var buffer = [CChar](repeating: 0, count: 64)
        let peer = lws_get_peer_simple(wsi, &buffer, buffer.count) != nil ? text(buffer) : "?"
        guard let fd = connect(peer) else {
            lws_close_reason(wsi, LWS_CLOSE_STATUS_UNEXPECTED_CONDITION, nil, 0)
            return -1
        }
        guard let raw = nimbus_lws_adopt_raw_socket(lws_get_vhost(wsi), fd, "mpd-raw") else { return -1 }
        let session = WebSession(socket: wsi)
        session.raw = raw
        loop.connections[key(wsi)] = .session(session)
        loop.connections[key(raw)] = .session(session)
        return 0
    }

    func received(_ wsi: OpaquePointer, _ input: UnsafeMutableRawPointer?, _ length: Int) -> Int32 {
        guard let session = loop.connections.session(key(wsi)) else { return -1 }
        guard session.incoming.count + length <= settings.maximumMessage else {
            logger.warning("a message over \(settings.maximumMessage) bytes; closing")
            lws_close_reason(wsi, LWS_CLOSE_STATUS_MESSAGE_TOO_LARGE, nil, 0)
            return -1
        }
        if let input, length > 0 { session.incoming += UnsafeRawBufferPointer(start: input, count: length) }
        guard lws_is_final_fragment(wsi) != 0, lws_remaining_packet_payload(wsi) == 0 else { return 0 }
        session.toDaemon += session.incoming
        session.incoming.removeAll(keepingCapacity: true)
        if session.toDaemon.count > settings.maximumMessage * 4 {
            // The daemon is not reading (a deferred answer, a full output): the page waits.
            lws_rx_flow_control(wsi, 0)
        }
        if let raw = session.raw { lws_callback_on_writable(raw) }
        return 0
    }

    func writeToDaemon(_ raw: OpaquePointer) -> Int32 {
        guard let session = loop.connections.session(key(raw)), !session.toDaemon.isEmpty else { return 0 }
        let chunk = min(session.toDaemon.count, 16 * 1024)
        guard send(raw, session.toDaemon.prefix(chunk), LWS_WRITE_HTTP) else { return -1 }
        session.toDaemon.removeFirst(chunk)
        if session.toDaemon.isEmpty {
            lws_rx_flow_control(session.socket, 1)
        } else {
            lws_callback_on_writable(raw)
        }
        return 0
    }

    func fromDaemon(_ raw: OpaquePointer, _ input: UnsafeMutableRawPointer?, _ length: Int) -> Int32 {
        guard let session = loop.connections.session(key(raw)) else { return -1 }
        if let input, length > 0 { session.toPage += UnsafeRawBufferPointer(start: input, count: length) }
        if session.toPage.count > Self.highWater, !session.throttled {
            session.throttled = true
            lws_rx_flow_control(raw, 0)
        }
        lws_callback_on_writable(session.socket)
        return 0
    }

    func writeToPage(_ wsi: OpaquePointer) -> Int32 {
        guard let session = loop.connections.session(key(wsi)) else { return -1 }
        if session.toPage.isEmpty {
            guard session.daemonClosed else { return 0 }
            lws_close_reason(wsi, LWS_CLOSE_STATUS_NORMAL, nil, 0)
            return -1
        }
        let chunk = min(session.toPage.count, 64 * 1024)
        guard send(wsi, session.toPage.prefix(chunk), LWS_WRITE_BINARY) else { return -1 }
        session.toPage.removeFirst(chunk)
        if session.throttled, session.toPage.count < Self.lowWater, let raw = session.raw {
            session.throttled = false
            lws_rx_flow_control(raw, 1)
        }
        if !session.toPage.isEmpty || session.daemonClosed { lws_callback_on_writable(wsi) }
        return 0
    }

    /// The page went: its MPD session ends with it.
    func socketClosed(_ wsi: OpaquePointer) {
        guard let session = loop.connections.session(key(wsi)) else { return }
        loop.connections.forget(key(wsi))
        if let raw = session.raw {
            loop.connections.forget(key(raw))
            session.raw = nil
            lws_set_timeout(raw, PENDING_TIMEOUT_KILLED_BY_PARENT, LWS_TO_KILL_ASYNC)
        }
    }

    /// The daemon ended the session (`close`, a timeout, a full output): the page's socket
    /// closes once what the daemon said last is out.
    func daemonClosed(_ raw: OpaquePointer) {
        guard let session = loop.connections.session(key(raw)) else { return }
        loop.connections.forget(key(raw))
        session.raw = nil
        session.daemonClosed = true
        lws_callback_on_writable(session.socket)
    }

    private func send(_ wsi: OpaquePointer, _ bytes: ArraySlice<UInt8>, _ kind: lws_write_protocol) -> Bool {
        let pre = nimbus_lws_pre()
        var buffer = [UInt8](repeating: 0, count: pre + bytes.count)
        buffer.replaceSubrange(pre..<pre + bytes.count, with: bytes)
        let written = buffer.withUnsafeMutableBufferPointer { lws_write(wsi, $0.baseAddress! + pre, bytes.count, kind) }
        return written >= bytes.count
    }
}
