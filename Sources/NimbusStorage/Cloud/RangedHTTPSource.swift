import NimbusInput

/// Where a file's bytes are: a URL and what must be sent with it.
public struct HTTPTarget: Sendable {
    public var url: String
    public var headers: [(name: String, value: String)]
    public var authentication: HTTPRequest.Authentication?

    public init(url: String, headers: [(name: String, value: String)] = [], authentication: HTTPRequest.Authentication? = nil) {
        self.url = url
        self.headers = headers
        self.authentication = authentication
    }
}

/// Ranged GETs of one version of one file, for every provider once its download link is
/// known. `resolve(fresh:)` gives the target; after a refused or expired link (401, 403,
/// 404 on a signed URL, 410) it is asked again with `fresh: true`, which re-resolves the link
/// and refreshes tokens. `If-Range` with the file's strong ETag, and the total in
/// `Content-Range`, make sure a file that changed on the server is never spliced into what is
/// cached: the cache then hears `.changed`. So does a `Last-Modified` in the answer that is
/// not the time the listing gave (`modified`): a server whose listing is stale (rclone's
/// directory cache) may still report the old length and ETag for a replaced file.
struct RangedHTTPSource: RemoteSource {
    let what: String
    let pool: HTTPSessionPool
    let length: Int64
    let validator: String?
    /// The file's time in the listing (seconds since 1970), checked against each answer.
    var modified: Int64? = nil
    let resolve: @Sendable (_ fresh: Bool) throws(RemoteError) -> HTTPTarget

    init(
        what: String, pool: HTTPSessionPool, length: Int64, validator: String?, modified: Int64? = nil,
        resolve: @escaping @Sendable (_ fresh: Bool) throws(RemoteError) -> HTTPTarget
    ) {
        self.what = what
        self.pool = pool
        self.length = length
        self.validator = validator
        self.modified = modified
        self.resolve = resolve
    }

    func fetch(_ range: Range<Int64>, purpose: FetchPurpose, into sink: (UnsafeRawBufferPointer) -> Bool) throws(RemoteError) {
        var fresh = false
        while true {
            let target = try resolve(fresh)
            do {
                try transfer(range, target, sink)
                return
            } catch where !fresh && (error.kind == .unauthorized || error.kind == .notFound) {
                // Expired link or token: resolve once more, then give up.
                fresh = true
            }
        }
    }

    private func transfer(_ range: Range<Int64>, _ target: HTTPTarget, _ sink: (UnsafeRawBufferPointer) -> Bool) throws(RemoteError) {
        var request = HTTPRequest(url: target.url, headers: target.headers, authentication: target.authentication)
        request.range = (range.lowerBound, range.upperBound - 1)
        if let validator, !validator.hasPrefix("W/"), validator.hasPrefix("\"") {
            request.headers.append(("If-Range", validator))
        }
        var failure: RemoteError?
        var skip: Int64 = 0
        let response: HTTPResponse
        do {
            response = try pool.withSession { session throws(HTTPError) in
                try session.perform(request) { response in
                    if let modified, modified > 0, response.status == 206 || response.status == 200,
                        let stamp = response[header: "last-modified"].flatMap({ HTTPHelpers.parseHTTPDate($0.trimmedSpaces) }),
                        stamp != modified
                    {
                        failure = RemoteError(.changed, "\(what): the file changed on the server (modified at another time than listed)")
                        return false
                    }
                    switch response.status {
                    case 206:
                        if let content = response.contentRange {
                            if let total = content.total, total != length {
                                failure = RemoteError(.changed, "\(what): the file changed (\(total) bytes, \(length) expected)")
                                return false
                            }
                            guard content.first == range.lowerBound else {
                                failure = RemoteError(.permanent, "\(what): the server sent another range")
                                return false
                            }
                        }
                        return true
                    case 200:
                        if request.header("If-Range") != nil {
                            failure = RemoteError(.changed, "\(what): the file changed on the server")
                            return false
                        }
                        // No range support: read from the start and drop what is not wanted.
                        skip = range.lowerBound
                        return true
                    case 416:
                        failure = RemoteError(.changed, "\(what): the file is shorter than expected")
                        return false
                    default:
                        failure = HTTPHelpers.error(for: response, what)
                        return false
                    }
                } onData: { chunk in
                    guard skip > 0 else { return sink(chunk) }
                    if Int64(chunk.count) <= skip {
                        skip -= Int64(chunk.count)
                        return true
                    }
                    let rest = UnsafeRawBufferPointer(rebasing: chunk[Int(skip)...])
                    skip = 0
                    return sink(rest)
                }
            }
        } catch {
            if let failure { throw failure }
            // Our sink declined more bytes: that is a normal end, not an error.
            if error.kind == .cancelled { return }
            throw HTTPHelpers.networkError(error, what)
        }
        if let failure { throw failure }
        _ = response
    }
}
