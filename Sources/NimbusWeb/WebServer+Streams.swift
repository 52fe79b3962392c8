import CWebSockets
import Dispatch
import Glibc

/// Streamed `/rest/` answers (songs, transcodes, downloads) on the web thread: written as the
/// worker's `APIStream` fills and the socket takes them — with a length, chunked without one,
/// or a local file by sendfile(2) (`WebServer+Files`) — kept alive while the bytes move, and
/// ended at once when the phone hangs up.
extension WebServer {
    /// Writes what the stream has; nil when the connection has no stream.
    func writeStream(_ wsi: OpaquePointer) -> Int32? {
        guard var streaming = loop.connections.stream(key(wsi)) else { return nil }
        if streaming.chunked { return writeChunk(wsi, streaming) }
        if let file = streaming.stream.fileToSend() { return writeFile(wsi, &streaming, file) }
        let pre = nimbus_lws_pre()
        guard let (bytes, takenCount, ended) = streaming.stream.take(upTo: Self.apiChunk, headroom: pre) else { return 0 }
        var buffer = bytes
        let count = Int(min(Int64(takenCount), streaming.remaining))
        streaming.remaining -= Int64(count)
        let last = streaming.remaining == 0
        if count > 0 {
            let written = buffer.withUnsafeMutableBufferPointer {
                lws_write(wsi, $0.baseAddress! + pre, count, last ? LWS_WRITE_HTTP_FINAL : LWS_WRITE_HTTP)
            }
            guard written == count else { return closeStream(wsi) }
            keepAlive(wsi)
        }
        if last {
            loop.connections.forget(key(wsi))
            return lws_http_transaction_completed(wsi) != 0 ? -1 : 0
        }
        // Ended short of its length (the source failed): closing tells the client.
        if ended { return closeStream(wsi) }
        loop.connections[key(wsi)] = .streaming(streaming)
        lws_callback_on_writable(wsi)
        return 0
    }

    /// One HTTP/1.1 chunk of what the stream has (its size line in the headroom before the
    /// bytes), and the empty last chunk once the stream ended.
    private func writeChunk(_ wsi: OpaquePointer, _ streaming: APIStreaming) -> Int32 {
        let pre = nimbus_lws_pre(), sizeRoom = 10
        guard let (bytes, count, ended) = streaming.stream.take(upTo: Self.apiChunk, headroom: pre + sizeRoom) else { return 0 }
        // The stream's end comes as an empty array, without the headroom.
        var buffer = count > 0 ? bytes : [UInt8](repeating: 0, count: pre + sizeRoom)
        var start = pre + sizeRoom
        if count > 0 {
            let sizeLine = Array((String(count, radix: 16) + "\r\n").utf8)
            start -= sizeLine.count
            buffer.replaceSubrange(start..<(pre + sizeRoom), with: sizeLine)
            buffer += Array("\r\n".utf8)
        }
        if ended { buffer += Array("0\r\n\r\n".utf8) }
        let length = buffer.count - start
        if length > 0 {
            let written = buffer.withUnsafeMutableBufferPointer {
                lws_write(wsi, $0.baseAddress! + start, length, ended ? LWS_WRITE_HTTP_FINAL : LWS_WRITE_HTTP)
            }
            guard written == length else { return closeStream(wsi) }
            keepAlive(wsi)
        }
        if ended {
            loop.connections.forget(key(wsi))
            return lws_http_transaction_completed(wsi) != 0 ? -1 : 0
        }
        lws_callback_on_writable(wsi)
        return 0
    }

    /// A body that is still moving keeps its connection: libwebsockets' request timeout
    /// (`timeout_secs`) would otherwise cut a phone playing a long stream at its own pace.
    /// A connection whose bytes stop moving for `streamStall` seconds is closed.
    func keepAlive(_ wsi: OpaquePointer) {
        lws_set_timeout(wsi, PENDING_TIMEOUT_HTTP_CONTENT, Self.streamStall)
    }

    static let streamStall: Int32 = 60

    func closeStream(_ wsi: OpaquePointer) -> Int32 {
        loop.connections.forget(key(wsi))
        return -1
    }

    /// libwebsockets reads nothing on an HTTP/1 connection while its answer is going out, yet
    /// keeps POLLIN in the poll set: a phone hanging up mid-stream left this thread spinning
    /// on that FIN (98 ms of CPU per skipped transcode, starving the encode that should have
    /// stopped) until a later write failed. So after each turn of the loop, at most every
    /// 2 ms, each stream's socket is peeked: end of input means the phone is gone, and its
    /// worker stops now. (Pausing reading with lws_rx_flow_control also stops the writable
    /// callbacks on h1, so it cannot be used.)
    func reapHungUpStreams() {
        guard loop.connections.streamCount > 0 else { return }
        let now = DispatchTime.now().uptimeNanoseconds
        guard now &- loop.lastHangUpCheck >= 2_000_000 else { return }
        loop.lastHangUpCheck = now
        var probe: UInt8 = 0
        for connection in loop.connections.streaming {
            guard let wsi = OpaquePointer(bitPattern: connection) else { continue }
            let fd = lws_get_socket_fd(wsi)
            guard fd >= 0, recv(fd, &probe, 1, Int32(MSG_PEEK | MSG_DONTWAIT)) == 0 else { continue }
            loop.connections.forget(connection)
            lws_set_timeout(wsi, PENDING_TIMEOUT_CLOSE_SEND, LWS_TO_KILL_ASYNC)
        }
    }

    func cancelStreams() {
        loop.connections.cancelStreams()
    }
}
