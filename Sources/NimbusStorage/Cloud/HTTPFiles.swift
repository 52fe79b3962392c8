import NimbusInput

/// Plain HTTP(S) files queued by URL (`add https://host/song.flac`): one probe for length and
/// validator (a one-byte ranged GET, which also proves range support), then the range cache.
/// A URL that answers with no length is a live stream, played as it comes.
public struct HTTPFiles: Sendable {
    let cache: RangeCache
    let pool: HTTPSessionPool

    public init(accounts: CloudAccounts) {
        cache = accounts.cache
        pool = accounts.pool
    }

    public func open(_ url: String, purpose: FetchPurpose) throws(InputError) -> any NimbusInput.InputStream {
        let host = Self.host(url)
        var request = HTTPRequest(url: url)
        request.range = (0, 0)
        // A radio station answers the one-byte probe with an endless 200: look at the headers
        // and stop there instead of reading it.
        var headers: HTTPResponse?
        var response: HTTPResponse
        do {
            response = try pool.withSession { session throws(HTTPError) in
                try session.perform(
                    request,
                    onResponse: { response in
                        headers = response
                        return !Self.isLive(response)
                    }) { _ in true }
            }
        } catch {
            guard error.kind == .cancelled, let headers else { throw InputError("\(host): \(error.message)") }
            response = headers
        }
        if Self.isLive(response) {
            return LiveHTTPStream(url: url, mimeType: response[header: "content-type"], pool: pool, what: host)
        }
        let length: Int64
        if response.status == 206, let total = response.contentRange?.total {
            length = total
        } else if response.status == 200, let value = response[header: "content-length"], let total = Int64(value) {
            length = total
        } else if response.isSuccess {
            throw InputError("\(host): no length known (streams are not supported)")
        } else {
            throw InputError(HTTPHelpers.error(for: response, host).message)
        }
        let etag = response[header: "etag"]
        let validator = etag.flatMap { $0.hasPrefix("\"") ? $0 : nil }
        let version = etag ?? response[header: "last-modified"] ?? "\(length)"
        let source = RangedHTTPSource(what: host, pool: pool, length: length, validator: validator) { _ in HTTPTarget(url: url) }
        let stream = try cache.open(
            key: CacheKey(account: "http", fileID: url, version: version), length: length, source: source, purpose: purpose,
            uri: url, mimeType: response[header: "content-type"])
        // The probe just named the version: its cached bytes are current.
        stream.markConfirmed()
        return stream
    }

    /// A small document fetched whole (a playlist): `accepts` sees the headers first and may
    /// refuse the body (an audio stream where a playlist was expected), which is never read
    /// then; more than `limit` bytes is refused too.
    public func fetchDocument(
        _ url: String, limit: Int, accepts: @escaping (HTTPResponse) -> Bool
    ) throws(InputError) -> (HTTPResponse, [UInt8]) {
        let host = Self.host(url)
        var bytes: [UInt8] = []
        var refused: HTTPResponse?
        var tooLarge = false
        let response: HTTPResponse
        do {
            response = try pool.withSession { session throws(HTTPError) in
                try session.perform(
                    HTTPRequest(url: url, stallTimeout: 10),
                    onResponse: { response in
                        guard response.isSuccess, accepts(response) else {
                            refused = response
                            return false
                        }
                        return true
                    }
                ) { chunk in
                    bytes.append(contentsOf: chunk)
                    tooLarge = bytes.count > limit
                    return !tooLarge
                }
            }
        } catch {
            if let refused { return (refused, []) }
            if tooLarge { throw InputError("\(host): larger than \(limit) bytes") }
            throw InputError("\(host): \(error.message)")
        }
        if let refused { return (refused, []) }
        return (response, bytes)
    }

    /// A whole body with no length: a live stream (Icecast, Shoutcast, chunked).
    static func isLive(_ response: HTTPResponse) -> Bool {
        response.status == 200 && response[header: "content-length"] == nil
    }

    /// The host (and port) a message names; credentials in the URL are left out.
    public static func host(_ url: String) -> String {
        guard let scheme = url.range(of: "://") else { return url }
        let authority = url[scheme.upperBound...].prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        return String(authority.lastIndex(of: "@").map { authority[authority.index(after: $0)...] } ?? authority)
    }
}
