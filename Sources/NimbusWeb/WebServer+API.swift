import Synchronization
import CWebSockets
import Foundation
import Glibc

/// A request under `/rest/` waiting for its POST body or its answer.
struct PendingAPI {
    var token: UInt64
    var request: APIRequest
    var body: [UInt8] = []
}

/// A streamed answer going out on a connection.
struct APIStreaming {
    let token: UInt64
    let stream: APIStream
    var remaining: Int64
    /// Written as HTTP/1.1 chunks, the last one empty.
    var chunked = false
}

/// `/rest/`: the API's requests (GET, HEAD, form POST, CORS preflight) are taken whole on
/// the web thread and handed to the API's handler; its answers come back through
/// `apiInbox`, and a streamed body is written as the connection takes it, never faster
/// than the client reads. No query string or body under `/rest/` is logged: they carry
/// passwords and tokens.
extension WebServer {
    /// The largest form body (and, through libwebsockets' header limit, query) taken.
    static let apiBodyLimit = 1 << 20
    static let apiChunk = 128 * 1024
    static let corsHeaders: [(String, String)] = [
        ("access-control-allow-origin:", "*"),
        ("access-control-allow-methods:", "GET, POST, HEAD, OPTIONS"),
        ("access-control-allow-headers:", "Content-Type, Range, Authorization"),
        ("access-control-expose-headers:", "Content-Length, Content-Range, Accept-Ranges, ETag"),
    ]

    static func isAPIPath(_ path: String) -> Bool { path == "/rest" || path.hasPrefix("/rest/") }

    func apiRequest(_ wsi: OpaquePointer, path: String) -> Int32 {
        guard settings.api != nil else { return status(wsi, 404, "Not found") }
        if lws_hdr_total_length(wsi, WSI_TOKEN_OPTIONS_URI) > 0 {
            return respond(wsi, code: 204, type: "text/plain", body: [], headers: Self.corsHeaders + [("access-control-max-age:", "86400")])
        }
        let method: String
        if lws_hdr_total_length(wsi, WSI_TOKEN_GET_URI) > 0 {
            method = "GET"
        } else if lws_hdr_total_length(wsi, WSI_TOKEN_HEAD_URI) > 0 {
            method = "HEAD"
        } else if lws_hdr_total_length(wsi, WSI_TOKEN_POST_URI) > 0 {
            method = "POST"
        } else {
            return status(wsi, 405, "Method not allowed", headers: Self.corsHeaders)
        }
        var headers: [String: String] = [:]
        for (name, token) in [("range", WSI_TOKEN_HTTP_RANGE), ("if-none-match", WSI_TOKEN_HTTP_IF_NONE_MATCH), ("user-agent", WSI_TOKEN_HTTP_USER_AGENT)] {
            if let value = header(wsi, token) { headers[name] = value }
        }
        var buffer = [CChar](repeating: 0, count: 128)
        let peer = lws_get_peer_simple(wsi, &buffer, buffer.count) != nil ? text(buffer) : "?"
        loop.nextToken += 1
        let pending = PendingAPI(
            token: loop.nextToken, request: APIRequest(method: method, path: path, arguments: uriArguments(wsi), headers: headers, peer: peer))
        if method == "POST" {
            if let length = header(wsi, WSI_TOKEN_HTTP_CONTENT_LENGTH).flatMap({ Int($0) }), length > Self.apiBodyLimit {
                return status(wsi, 413, "Request body too large", headers: Self.corsHeaders)
            }
            // The body follows in HTTP_BODY callbacks; a form is read as arguments.
            loop.connections[key(wsi)] = .receivingBody(pending)
            return 0
        }
        dispatch(wsi, pending)
        return 0
    }

    func apiBody(_ wsi: OpaquePointer, _ input: UnsafeMutableRawPointer?, _ length: Int) -> Int32 {
        guard var pending = loop.connections.pending(key(wsi)), let input else { return 0 }
        guard pending.body.count + length <= Self.apiBodyLimit else {
            loop.connections.forget(key(wsi))
            _ = status(wsi, 413, "Request body too large", headers: Self.corsHeaders)
            return -1
        }
        pending.body += UnsafeRawBufferPointer(start: input, count: length)
        loop.connections[key(wsi)] = .receivingBody(pending)
        return 0
    }

    func apiBodyComplete(_ wsi: OpaquePointer) -> Int32 {
        guard var pending = loop.connections.pending(key(wsi)) else { return 0 }
        loop.connections.forget(key(wsi))
        pending.request.arguments += FormDecoding.arguments(pending.body)
        pending.body = []
        dispatch(wsi, pending)
        return 0
    }

    private func dispatch(_ wsi: OpaquePointer, _ pending: PendingAPI) {
        guard let api = settings.api else { return }
        let connection = key(wsi), token = pending.token, inbox = apiInbox
        loop.connections[connection] = .waitingForAnswer(token: token)
        // An answer given before the handler returns (a lookup answered on this thread) is
        // sent now, without a trip through the inbox and another turn of the loop.
        let immediate = ImmediateAnswer()
        api(pending.request) { answer in
            if !immediate.keep(answer) { inbox.post(.answer(connection: connection, token: token, answer)) }
        }
        if let answer = immediate.close() {
            loop.connections.forget(connection)
            send(answer, on: wsi, token: token)
        }
    }

    /// The answers and stream wake-ups that came in, for connections still there.
    func deliverAPI() {
        for event in apiInbox.take() {
            switch event {
            case .answer(let connection, let token, let answer):
                guard loop.connections.answerToken(connection) == token, let wsi = OpaquePointer(bitPattern: connection) else {
                    answer.body.stream?.cancel()
                    continue
                }
                loop.connections.forget(connection)
                send(answer, on: wsi, token: token)
            case .data(let connection, let token):
                guard loop.connections.stream(connection)?.token == token, let wsi = OpaquePointer(bitPattern: connection) else { continue }
                lws_callback_on_writable(wsi)
            }
        }
    }

    private func send(_ answer: APIAnswer, on wsi: OpaquePointer, token: UInt64) {
        let headers = answer.headers + Self.corsHeaders
        switch answer.body {
        case .bytes(let bytes):
            if respond(wsi, code: answer.status, type: answer.type, body: bytes, headers: headers, headOnly: answer.headOnly) < 0 {
                lws_set_timeout(wsi, PENDING_TIMEOUT_CLOSE_SEND, LWS_TO_KILL_ASYNC)
            }
        case .stream(let stream, let length):
            startStream(stream, on: wsi, token: token, answer: answer, headers: headers, length: length)
        case .chunked(let stream):
            startStream(stream, on: wsi, token: token, answer: answer, headers: headers + [("transfer-encoding:", "chunked")], length: nil)
        }
    }

    /// `length` nil: chunked.
    private func startStream(
        _ stream: APIStream, on wsi: OpaquePointer, token: UInt64, answer: APIAnswer, headers: [(String, String)], length: Int64?
    ) {
        let headLength = length.map { lws_filepos_t($0) } ?? lws_filepos_t.max  // LWS_ILLEGAL_HTTP_CONTENT_LEN: no Content-Length
        guard writeHead(wsi, code: answer.status, type: answer.type, length: headLength, headers: headers) else {
            stream.cancel()
            lws_set_timeout(wsi, PENDING_TIMEOUT_CLOSE_SEND, LWS_TO_KILL_ASYNC)
            return
        }
        if answer.headOnly || length == 0 {
            stream.cancel()
            if lws_http_transaction_completed(wsi) != 0 { lws_set_timeout(wsi, PENDING_TIMEOUT_CLOSE_SEND, LWS_TO_KILL_ASYNC) }
            return
        }
        keepAlive(wsi)
        let connection = key(wsi), inbox = apiInbox
        loop.connections[connection] = .streaming(APIStreaming(token: token, stream: stream, remaining: length ?? .max, chunked: length == nil))
        stream.attach { inbox.post(.data(connection: connection, token: token)) }
        lws_callback_on_writable(wsi)
    }

    /// Every argument of the query string, in order (libwebsockets splits and decodes them).
    private func uriArguments(_ wsi: OpaquePointer) -> [(name: String, value: String)] {
        var arguments: [(name: String, value: String)] = []
        var buffer = [CChar](repeating: 0, count: 8192)
        var index: Int32 = 0
        while index < 2048, lws_hdr_copy_fragment(wsi, &buffer, Int32(buffer.count), WSI_TOKEN_HTTP_URI_ARGS, index) >= 0 {
            let fragment = text(buffer)
            if let equals = fragment.firstIndex(of: "=") {
                arguments.append((String(fragment[..<equals]), String(fragment[fragment.index(after: equals)...])))
            } else if !fragment.isEmpty {
                arguments.append((fragment, ""))
            }
            index += 1
        }
        return arguments
    }
}

/// `application/x-www-form-urlencoded`, as a form POST sends it.
enum FormDecoding {
    static func arguments(_ body: [UInt8]) -> [(name: String, value: String)] {
        body.split(separator: UInt8(ascii: "&")).map { pair in
            let parts = pair.split(separator: UInt8(ascii: "="), maxSplits: 1, omittingEmptySubsequences: false)
            return (decode(parts[0]), parts.count > 1 ? decode(parts[1]) : "")
        }
    }

    static func decode(_ bytes: ArraySlice<UInt8>) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var index = bytes.startIndex
        while index < bytes.endIndex {
            let byte = bytes[index]
            if byte == UInt8(ascii: "+") {
                out.append(UInt8(ascii: " "))
            } else if byte == UInt8(ascii: "%"), index + 2 < bytes.endIndex, let high = hex(bytes[index + 1]), let low = hex(bytes[index + 2]) {
                out.append(high << 4 | low)
                index += 2
            } else {
                out.append(byte)
            }
            index += 1
        }
        return String(decoding: out, as: UTF8.self)
    }

    private static func hex(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return byte - UInt8(ascii: "A") + 10
        default: return nil
        }
    }
}

/// Holds an answer given while the handler is still running on the web thread.
final class ImmediateAnswer: Sendable {
    private let state = Mutex<(open: Bool, answer: APIAnswer?)>((true, nil))

    /// Kept for the web thread to send (true), or too late: it goes through the inbox.
    func keep(_ answer: APIAnswer) -> Bool {
        state.withLock { state in
            guard state.open else { return false }
            state.answer = answer
            return true
        }
    }

    func close() -> APIAnswer? {
        state.withLock { state in
            state.open = false
            return state.answer
        }
    }
}
