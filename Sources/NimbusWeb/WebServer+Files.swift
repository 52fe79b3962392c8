import CWebSockets
import Glibc

/// A local file's bytes for `/rest/download` and `stream` of an original: sendfile(2) from the
/// page cache to the socket, past libwebsockets (plain HTTP/1.1, no TLS, so nothing of its
/// framing is skipped). It runs only when libwebsockets holds nothing unsent for the
/// connection: it flushes a partly sent head before it calls back.
extension WebServer {
    /// Up to this much per writable callback, so one download does not hold the web thread
    /// while page requests wait.
    static let fileChunk = 1 << 20

    func writeFile(_ wsi: OpaquePointer, _ streaming: inout APIStreaming, _ file: (fd: Int32, offset: Int64, end: Int64)) -> Int32 {
        loop.connections[key(wsi)] = .streaming(streaming)
        guard lws_partial_buffered(wsi) == 0 else {
            lws_callback_on_writable(wsi)
            return 0
        }
        var offset = off_t(file.offset)
        let wanted = Int(min(Int64(Self.fileChunk), file.end - file.offset, streaming.remaining))
        let sent = sendfile(lws_get_socket_fd(wsi), file.fd, &offset, wanted)
        if sent < 0 {
            guard errno == EAGAIN || errno == EINTR else { return closeStream(wsi) }
            lws_callback_on_writable(wsi)
            return 0
        }
        // Nothing more in the file (it shrank): closing short of the length tells the client.
        guard sent > 0 else { return closeStream(wsi) }
        streaming.stream.sent(sent)
        streaming.remaining -= Int64(sent)
        keepAlive(wsi)
        guard streaming.remaining > 0 else {
            loop.connections.forget(key(wsi))
            return lws_http_transaction_completed(wsi) != 0 ? -1 : 0
        }
        loop.connections[key(wsi)] = .streaming(streaming)
        lws_callback_on_writable(wsi)
        return 0
    }
}
