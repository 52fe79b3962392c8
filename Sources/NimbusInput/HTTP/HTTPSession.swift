import CCurl
import Glibc
import Synchronization

/// One libcurl easy handle, reused request after request so its connections stay open (a
/// second request to the same host costs no new TCP or TLS handshake). A session belongs to
/// one thread at a time; `HTTPSessionPool` hands them out.
public final class HTTPSession {
    private let handle: OpaquePointer
    private static let globalInit: Void = { curl_global_init(Int(CURL_GLOBAL_ALL)) }()
    /// libcurl's one-time setup, for every kind of session.
    static var ensureGlobalInit: Void { globalInit }

    public init() {
        _ = Self.globalInit
        handle = OpaquePointer(curl_easy_init())
    }

    deinit { curl_easy_cleanup(UnsafeMutableRawPointer(handle)) }

    /// Runs `request`. `onResponse` sees the final status and headers before the first body
    /// byte and may refuse the body (returning false ends the transfer, as `onData` may);
    /// redirects are followed first.
    @discardableResult
    public func perform(
        _ request: HTTPRequest, onResponse: (HTTPResponse) -> Bool = { _ in true },
        onData: (UnsafeRawBufferPointer) -> Bool
    ) throws(HTTPError) -> HTTPResponse {
        try withoutActuallyEscaping(onResponse) { (onResponse) throws(HTTPError) -> HTTPResponse in
            try withoutActuallyEscaping(onData) { (onData) throws(HTTPError) -> HTTPResponse in
                try run(request, TransferContext(onResponse: onResponse, onData: onData))
            }
        }
    }

    private func run(_ request: HTTPRequest, _ context: TransferContext) throws(HTTPError) -> HTTPResponse {
        let easy = UnsafeMutableRawPointer(handle)
        curl_easy_reset(easy)
        var headerList: UnsafeMutablePointer<curl_slist>?
        defer { curl_slist_free_all(headerList) }
        return try withExtendedLifetime(context) { () throws(HTTPError) -> HTTPResponse in
            let opaque = Unmanaged.passUnretained(context).toOpaque()
            ccurl_setopt_str(easy, CURLOPT_URL, request.url)
            ccurl_setopt_long(easy, CURLOPT_NOSIGNAL, 1)
            ccurl_setopt_long(easy, CURLOPT_CONNECTTIMEOUT, 10)
            ccurl_setopt_long(easy, CURLOPT_LOW_SPEED_LIMIT, 1)
            ccurl_setopt_long(easy, CURLOPT_LOW_SPEED_TIME, request.stallTimeout)
            ccurl_setopt_long(easy, CURLOPT_FOLLOWLOCATION, request.followRedirects ? 1 : 0)
            ccurl_setopt_long(easy, CURLOPT_MAXREDIRS, 8)
            // Byte offsets must refer to the stored file; a whole document may come compressed.
            ccurl_setopt_str(easy, CURLOPT_ACCEPT_ENCODING, request.compressed ? "" : "identity")
            ccurl_setopt_str(easy, CURLOPT_USERAGENT, "Nimbus/0.1 (MPD-compatible music server)")
            if let range = request.range {
                ccurl_setopt_str(easy, CURLOPT_RANGE, "\(range.first)-\(range.last.map(String.init) ?? "")")
            }
            switch request.authentication {
            case .password(let user, let password):
                ccurl_setopt_str(easy, CURLOPT_USERNAME, user)
                ccurl_setopt_str(easy, CURLOPT_PASSWORD, password)
                ccurl_setopt_long(easy, CURLOPT_HTTPAUTH, ccurl_auth_basic_or_digest())
            case .basic(let user, let password):
                ccurl_setopt_str(easy, CURLOPT_USERNAME, user)
                ccurl_setopt_str(easy, CURLOPT_PASSWORD, password)
                ccurl_setopt_long(easy, CURLOPT_HTTPAUTH, ccurl_auth_basic())
            case nil:
                break
            }
            for header in request.headers { headerList = curl_slist_append(headerList, "\(header.name): \(header.value)") }
            if request.body != nil && request.header("Content-Type") == nil {
                headerList = curl_slist_append(headerList, "Content-Type: application/octet-stream")
            }
            headerList = curl_slist_append(headerList, "Expect:")
            ccurl_setopt_slist(easy, CURLOPT_HTTPHEADER, headerList)
            switch request.method {
            case "GET": ccurl_setopt_long(easy, CURLOPT_HTTPGET, 1)
            case "HEAD": ccurl_setopt_long(easy, CURLOPT_NOBODY, 1)
            default: ccurl_setopt_str(easy, CURLOPT_CUSTOMREQUEST, request.method)
            }
            var body = request.body ?? []
            let result = body.withUnsafeMutableBytes { raw -> Result<HTTPResponse, HTTPError> in
                if request.body != nil {
                    if request.method == "POST" { ccurl_setopt_long(easy, CURLOPT_POST, 1) }
                    ccurl_setopt_ptr(easy, CURLOPT_POSTFIELDS, raw.baseAddress ?? UnsafeMutableRawPointer(bitPattern: 1))
                    ccurl_setopt_long(easy, CURLOPT_POSTFIELDSIZE, raw.count)
                }
                ccurl_setopt_ptr(easy, CURLOPT_HEADERDATA, opaque)
                ccurl_setopt_write_cb(easy, CURLOPT_HEADERFUNCTION, headerCallback)
                ccurl_setopt_ptr(easy, CURLOPT_WRITEDATA, opaque)
                ccurl_setopt_write_cb(easy, CURLOPT_WRITEFUNCTION, writeCallback)
                let code = curl_easy_perform(easy)
                var status = 0
                ccurl_getinfo_long(easy, CURLINFO_RESPONSE_CODE, &status)
                var effective: UnsafeMutablePointer<CChar>?
                ccurl_getinfo_str(easy, CURLINFO_EFFECTIVE_URL, &effective)
                context.response.status = status
                context.response.effectiveURL = effective.map { String(cString: $0) } ?? request.url
                var offered = 0
                ccurl_getinfo_long(easy, CURLINFO_HTTPAUTH_AVAIL, &offered)
                context.response.offersBasic = offered & ccurl_auth_basic() != 0
                if code != CURLE_OK {
                    if context.stopped { return .failure(HTTPError(.cancelled, "transfer stopped")) }
                    let unreachable = code == CURLE_COULDNT_CONNECT || code == CURLE_COULDNT_RESOLVE_HOST
                        || code == CURLE_COULDNT_RESOLVE_PROXY
                    return .failure(HTTPError(unreachable ? .unreachable : .network, String(cString: curl_easy_strerror(code))))
                }
                // A body-less response never reached the write callback.
                if !context.announced { _ = context.announce() }
                return .success(context.response)
            }
            return try result.get()
        }
    }

    /// The whole body in memory (API calls), refused beyond `limit` bytes.
    public func data(_ request: HTTPRequest, limit: Int = 32 << 20) throws(HTTPError) -> (HTTPResponse, [UInt8]) {
        var bytes: [UInt8] = []
        let response = try perform(request) { chunk in
            bytes.append(contentsOf: chunk)
            return bytes.count <= limit
        }
        return (response, bytes)
    }
}

/// Per-transfer state the C callbacks reach through their context pointer.
private final class TransferContext {
    var response = HTTPResponse(status: 0)
    var announced = false
    var stopped = false
    let onResponse: (HTTPResponse) -> Bool
    let onData: (UnsafeRawBufferPointer) -> Bool

    init(onResponse: @escaping (HTTPResponse) -> Bool, onData: @escaping (UnsafeRawBufferPointer) -> Bool) {
        self.onResponse = onResponse
        self.onData = onData
    }

    func header(_ line: String) {
        if line.hasPrefix("HTTP/") {
            // A new response (after a redirect or a 100): start over.
            let parts = line.split(separator: " ", maxSplits: 2)
            response = HTTPResponse(status: parts.count > 1 ? Int(parts[1]) ?? 0 : 0)
            return
        }
        guard let colon = line.firstIndex(of: ":") else { return }
        let name = line[..<colon].lowercased()
        let value = String(line[line.index(after: colon)...]).trimmed
        response.headers[name] = value
    }

    func announce() -> Bool {
        announced = true
        return onResponse(response)
    }
}

private func headerCallback(_ data: UnsafeMutablePointer<CChar>?, _ size: Int, _ count: Int, _ context: UnsafeMutableRawPointer?) -> Int {
    let transfer = Unmanaged<TransferContext>.fromOpaque(context!).takeUnretainedValue()
    let bytes = UnsafeRawBufferPointer(start: data, count: size * count)
    transfer.header(String(decoding: bytes, as: UTF8.self).trimmed)
    return size * count
}

private func writeCallback(_ data: UnsafeMutablePointer<CChar>?, _ size: Int, _ count: Int, _ context: UnsafeMutableRawPointer?) -> Int {
    let transfer = Unmanaged<TransferContext>.fromOpaque(context!).takeUnretainedValue()
    if !transfer.announced, !transfer.announce() {
        transfer.stopped = true
        return 0
    }
    guard transfer.onData(UnsafeRawBufferPointer(start: data, count: size * count)) else {
        transfer.stopped = true
        return 0
    }
    return size * count
}

/// Idle sessions of one kind (HTTP, or FTP/SFTP), so transfers on any thread reuse warm
/// connections. Bounded: a session beyond `capacity` is simply dropped when returned.
public final class SessionPool<Session>: Sendable {
    private let idle = Mutex<[SessionBox<Session>]>([])
    private let capacity: Int
    private let make: @Sendable () -> Session

    public init(capacity: Int, make: @escaping @Sendable () -> Session) {
        self.capacity = capacity
        self.make = make
    }

    public func withSession<T, E: Error>(_ body: (Session) throws(E) -> T) throws(E) -> T {
        let box = idle.withLock { $0.popLast() } ?? SessionBox(make())
        defer {
            idle.withLock { sessions in
                if sessions.count < capacity { sessions.append(box) }
            }
        }
        return try body(box.session)
    }
}

/// Idle HTTP sessions.
public typealias HTTPSessionPool = SessionPool<HTTPSession>

extension SessionPool where Session == HTTPSession {
    public convenience init(capacity: Int = 8) { self.init(capacity: capacity) { HTTPSession() } }
}

/// A session parked in the pool; only one thread uses it between checkout and return.
private final class SessionBox<Session>: @unchecked Sendable {
    let session: Session
    init(_ session: Session) { self.session = session }
}
