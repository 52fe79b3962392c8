import CWebSockets
import Foundation
import CLinux
import Glibc

/// What libwebsockets reports, on the web thread: HTTP requests for the page's files, the
/// page's WebSocket, and the raw socket to the daemon behind it.
extension WebServer {
    func handle(_ wsi: OpaquePointer, _ reason: lws_callback_reasons, _ input: UnsafeMutableRawPointer?, _ length: Int) -> Int32 {
        switch reason {
        case LWS_CALLBACK_HTTP:
            let path = input.map { String(cString: $0.assumingMemoryBound(to: CChar.self)) } ?? "/"
            // The API answers phones by any name (its sign-in is its guard), the page only its own.
            if Self.isAPIPath(path) { return apiRequest(wsi, path: path) }
            return settings.apiOnly ? status(wsi, 404, "Not found") : request(wsi, path: path)
        case LWS_CALLBACK_HTTP_BODY:
            return apiBody(wsi, input, length)
        case LWS_CALLBACK_HTTP_BODY_COMPLETION:
            return apiBodyComplete(wsi)
        case LWS_CALLBACK_HTTP_WRITEABLE:
            return writeStream(wsi) ?? writeBody(wsi)
        case LWS_CALLBACK_CLOSED_HTTP:
            // Whatever it was doing — a body arriving, an answer awaited, a stream — ends here.
            // (A WebSocket session ends through its own close callbacks.)
            if loop.connections.session(key(wsi)) == nil { loop.connections.forget(key(wsi)) }
        case LWS_CALLBACK_EVENT_WAIT_CANCELLED:
            sendCovers()
            deliverAPI()
        case LWS_CALLBACK_FILTER_PROTOCOL_CONNECTION:
            return !settings.apiOnly && mayOpenSocket(wsi) ? 0 : 1
        case LWS_CALLBACK_ESTABLISHED:
            return opened(wsi)
        case LWS_CALLBACK_RECEIVE:
            return received(wsi, input, length)
        case LWS_CALLBACK_SERVER_WRITEABLE:
            return writeToPage(wsi)
        case LWS_CALLBACK_CLOSED:
            socketClosed(wsi)
        case LWS_CALLBACK_RAW_RX:
            return fromDaemon(wsi, input, length)
        case LWS_CALLBACK_RAW_WRITEABLE:
            return writeToDaemon(wsi)
        case LWS_CALLBACK_RAW_CLOSE:
            daemonClosed(wsi)
        case LWS_CALLBACK_RAW_RX_FILE:
            acceptConnections(on: wsi)
        default:
            break
        }
        return 0
    }

    // MARK: HTTP

    /// A listening socket is readable: every waiting connection is accepted and handed to
    /// libwebsockets as if its own listener had taken it.
    private func acceptConnections(on listener: OpaquePointer) {
        guard let vhost = loop.vhost else { return }
        let fd = nimbus_lws_file_fd(listener)
        while true {
            let connection = clinux_accept4(fd, Int32(SOCK_NONBLOCK.rawValue | SOCK_CLOEXEC.rawValue))
            guard connection >= 0 else {
                // EAGAIN: all taken. EMFILE and the like: the rest wait for the next turn.
                if errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR && errno != ECONNABORTED {
                    logger.warning("accept: \(String(cString: strerror(errno)))")
                }
                if errno == EINTR || errno == ECONNABORTED { continue }
                return
            }
            // On failure libwebsockets has closed the connection.
            _ = lws_adopt_socket_vhost(vhost, connection)
        }
    }

    func header(_ wsi: OpaquePointer, _ token: lws_token_indexes) -> String? {
        let length = Int(lws_hdr_total_length(wsi, token))
        guard length > 0, length < 4096 else { return nil }
        var buffer = [CChar](repeating: 0, count: length + 1)
        guard lws_hdr_copy(wsi, &buffer, Int32(buffer.count), token) >= 0 else { return nil }
        return text(buffer)
    }

    private func request(_ wsi: OpaquePointer, path: String) -> Int32 {
        guard let host = header(wsi, WSI_TOKEN_HOST), settings.hosts.allows(host: host) else {
            logger.warning("refused a request for another host name (\(header(wsi, WSI_TOKEN_HOST) ?? "none"))")
            return status(wsi, 403, "This box answers to its own names and addresses only.")
        }
        let isHead = lws_hdr_total_length(wsi, WSI_TOKEN_HEAD_URI) > 0
        guard isHead || lws_hdr_total_length(wsi, WSI_TOKEN_GET_URI) > 0 else { return status(wsi, 405, "Method not allowed") }
        if path == "/cover" { return coverRequest(wsi) }
        if path == "/about.json" {
            struct Stream: Encodable { let name: String, port: Int }
            struct About: Encodable { let version: String, streams: [Stream] }
            let streams = settings.streams.sorted { $0.key < $1.key }.map { Stream(name: $0.key, port: $0.value) }
            let body = (try? JSONEncoder().encode(About(version: settings.version, streams: streams))).map { Array($0) } ?? Array("{}".utf8)
            return respond(wsi, code: 200, type: "application/json", body: body, headers: [("cache-control:", "no-cache")])
        }
        guard let asset = assets.asset(forPath: path) else { return status(wsi, 404, "Not found") }
        let notModified = header(wsi, WSI_TOKEN_HTTP_IF_NONE_MATCH) == asset.etag
        let gzip = asset.gzipped != nil && (header(wsi, WSI_TOKEN_HTTP_ACCEPT_ENCODING)?.contains("gzip") ?? false)
        let body = notModified ? [] : gzip ? asset.gzipped! : asset.bytes
        var headers: [(String, String)] = [("etag:", asset.etag), ("cache-control:", asset.cacheControl)]
        headers += [("x-content-type-options:", "nosniff"), ("referrer-policy:", "no-referrer"), ("vary:", "Accept-Encoding")]
        headers.append(("content-security-policy:", "default-src 'self'; connect-src 'self' ws: wss:; img-src 'self' data: blob:; media-src *"))
        if gzip && !notModified { headers.append(("content-encoding:", "gzip")) }
        return respond(wsi, code: notModified ? 304 : 200, type: asset.type, body: body, headers: headers, headOnly: isHead)
    }

    func status(_ wsi: OpaquePointer, _ code: Int, _ message: String, headers: [(String, String)] = []) -> Int32 {
        respond(wsi, code: code, type: "text/plain; charset=utf-8", body: Array(message.utf8), headers: headers)
    }

    /// Writes the head now and the body as the connection takes it.
    func respond(
        _ wsi: OpaquePointer, code: Int, type: String, body: [UInt8], headers: [(String, String)], headOnly: Bool = false
    ) -> Int32 {
        guard writeHead(wsi, code: code, type: type, length: lws_filepos_t(body.count), headers: headers) else { return -1 }
        if headOnly || body.isEmpty { return lws_http_transaction_completed(wsi) != 0 ? -1 : 0 }
        loop.connections[key(wsi)] = .answering(HTTPResponse(body: body))
        lws_callback_on_writable(wsi)
        return 0
    }

    func writeHead(_ wsi: OpaquePointer, code: Int, type: String, length: lws_filepos_t, headers: [(String, String)]) -> Bool {
        let pre = nimbus_lws_pre()
        var buffer = [UInt8](repeating: 0, count: pre + 2048)
        return buffer.withUnsafeMutableBufferPointer { raw -> Bool in
            let start = raw.baseAddress! + pre
            var position: UnsafeMutablePointer<UInt8>? = start
            let end = raw.baseAddress! + raw.count - 1
            guard lws_add_http_common_headers(wsi, UInt32(code), type, length, &position, end) == 0 else { return false }
            for (name, value) in headers {
                let bytes = Array(value.utf8)
                guard lws_add_http_header_by_name(wsi, name, bytes, Int32(bytes.count), &position, end) == 0 else { return false }
            }
            return lws_finalize_write_http_header(wsi, start, &position, end) == 0
        }
    }

    private func writeBody(_ wsi: OpaquePointer) -> Int32 {
        guard var response = loop.connections.response(key(wsi)) else { return 0 }
        let pre = nimbus_lws_pre()
        let chunk = min(16 * 1024, response.body.count - response.sent)
        var buffer = [UInt8](repeating: 0, count: pre + chunk)
        buffer.replaceSubrange(pre..<pre + chunk, with: response.body[response.sent..<response.sent + chunk])
        let last = response.sent + chunk == response.body.count
        let written = buffer.withUnsafeMutableBufferPointer {
            lws_write(wsi, $0.baseAddress! + pre, chunk, last ? LWS_WRITE_HTTP_FINAL : LWS_WRITE_HTTP)
        }
        guard written == chunk else { return -1 }
        response.sent += chunk
        if last {
            loop.connections.forget(key(wsi))
            return lws_http_transaction_completed(wsi) != 0 ? -1 : 0
        }
        loop.connections[key(wsi)] = .answering(response)
        lws_callback_on_writable(wsi)
        return 0
    }
}
