import Foundation
import NimbusInput
import NimbusSupport

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

    /// What the one-byte probe said of a URL, kept a few seconds: the background tag scan of a
    /// URL just queued and the player opening it right after ask the server once, not twice
    /// (and a radio station sees one probe, not two).
    private let probes = ProbeMemo()

    /// `allowLive`: false for a reader that only wants files (a tag scan), which gets an error
    /// for a live stream instead of a connection to it.
    public func open(_ url: String, purpose: FetchPurpose, allowLive: Bool = true) throws(InputError) -> any NimbusInput.InputStream {
        let host = Self.host(url)
        let response = try probe(url)
        if Self.isLive(response) {
            guard allowLive else { throw InputError("\(host): a live stream") }
            return LiveHTTPStream(url: url, mimeType: response[header: "content-type"], pool: pool, what: host)
        }
        let (key, length, source) = try cacheable(url, response)
        let stream = try cache.open(
            key: key, length: length, source: source, purpose: purpose, uri: url, mimeType: response[header: "content-type"])
        // The probe just named the version: its cached bytes are current.
        stream.markConfirmed()
        return stream
    }

    /// The file a probe described, as the range cache keys and fetches it.
    private func cacheable(_ url: String, _ response: HTTPResponse) throws(InputError) -> (CacheKey, Int64, RangedHTTPSource) {
        let host = Self.host(url)
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
        return (CacheKey(account: "http", fileID: url, version: version), length, source)
    }

    /// A URL's file as an offline download sees it (a podcast episode kept offline), with the
    /// same cache key playing uses, so pinned bytes and heard bytes are one copy. Blocking:
    /// one probe. nil for a live stream or an unreachable file.
    public func offlineFile(_ url: String, account: String) -> OfflineFile? {
        guard let response = try? probe(url), !Self.isLive(response), let (key, length, source) = try? cacheable(url, response) else {
            return nil
        }
        return OfflineFile(account: account, key: key, size: length, health: Self.health, cache: cache, source: source)
    }

    /// Files by URL belong to no account: their health is always fine.
    private static let health = AccountHealth(path: nil)

    /// The headers of a one-byte ranged GET, remembered for a few seconds.
    private func probe(_ url: String) throws(InputError) -> HTTPResponse {
        try probes.probe(url) { () throws(InputError) -> HTTPResponse in try ask(url) }
    }

    private func ask(_ url: String) throws(InputError) -> HTTPResponse {
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
            guard error.kind == .cancelled, let headers else { throw InputError("\(Self.host(url)): \(error.message)") }
            response = headers
        }
        return response
    }

    /// A small document fetched whole (a playlist): `accepts` sees the headers first and may
    /// refuse the body (an audio stream where a playlist was expected), which is never read
    /// then; more than `limit` bytes is refused too.
    /// `headers`: conditional ones (`If-None-Match`) for a feed; a 304 comes back as it is.
    public func fetchDocument(
        _ url: String, limit: Int, headers: [(name: String, value: String)] = [], compressed: Bool = false,
        accepts: @escaping (HTTPResponse) -> Bool
    ) throws(InputError) -> (HTTPResponse, [UInt8]) {
        let host = Self.host(url)
        var bytes: [UInt8] = []
        var refused: HTTPResponse?
        var tooLarge = false
        let response: HTTPResponse
        do {
            response = try pool.withSession { session throws(HTTPError) in
                var request = HTTPRequest(url: url, headers: headers, stallTimeout: 10)
                request.compressed = compressed
                return try session.perform(
                    request,
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

/// Probe answers by URL for `ProbeMemo.lifetime`, a handful at most; a probe asked for while
/// the same one is under way waits for it instead of asking the server again.
final class ProbeMemo: @unchecked Sendable {
    // Invariant: `entries` and `inFlight` are only touched with `condition` locked.
    private let condition = NSCondition()
    private var entries: [(url: String, response: HTTPResponse, at: UInt64)] = []
    private var inFlight: Set<String> = []
    static let lifetime: UInt64 = 15_000_000_000

    func probe(_ url: String, _ ask: () throws(InputError) -> HTTPResponse) throws(InputError) -> HTTPResponse {
        condition.lock()
        while true {
            let now = MonotonicClock.now()
            entries.removeAll { now - $0.at > Self.lifetime }
            if let known = entries.last(where: { $0.url == url })?.response {
                condition.unlock()
                return known
            }
            guard inFlight.contains(url) else { break }
            condition.wait()
        }
        inFlight.insert(url)
        condition.unlock()
        let result = Result { () throws(InputError) -> HTTPResponse in try ask() }
        condition.withLock {
            inFlight.remove(url)
            if case .success(let response) = result, response.isSuccess {
                entries.append((url, response, MonotonicClock.now()))
                if entries.count > 32 { entries.removeFirst(entries.count - 32) }
            }
            condition.broadcast()
        }
        return try result.get()
    }
}
