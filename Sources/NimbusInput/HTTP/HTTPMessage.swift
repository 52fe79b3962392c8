/// One HTTP request as the cloud clients describe it; the session turns it into libcurl options.
public struct HTTPRequest: Sendable {
    public enum Authentication: Sendable, Equatable {
        /// Basic or Digest, whichever the server asks for: libcurl first asks without, then
        /// answers the challenge (one extra round trip per new connection).
        case password(user: String, password: String)
        /// Basic sent with the first request (once a server is known to accept it).
        case basic(user: String, password: String)
    }

    public var method: String
    public var url: String
    public var headers: [(name: String, value: String)]
    public var body: [UInt8]?
    /// First and last byte (inclusive); nil last byte: to the end.
    public var range: (first: Int64, last: Int64?)?
    public var authentication: Authentication?
    public var followRedirects: Bool
    /// Seconds without a single byte before the transfer is abandoned (a stalled connection).
    public var stallTimeout: Int
    /// Whether the server may compress the body (gzip, deflate; libcurl decodes it). Off for
    /// files read by byte range, whose offsets must refer to the stored bytes.
    public var compressed = false

    public init(
        method: String = "GET", url: String, headers: [(name: String, value: String)] = [], body: [UInt8]? = nil,
        range: (first: Int64, last: Int64?)? = nil, authentication: Authentication? = nil, followRedirects: Bool = true,
        stallTimeout: Int = 15
    ) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
        self.range = range
        self.authentication = authentication
        self.followRedirects = followRedirects
        self.stallTimeout = stallTimeout
    }

    public func header(_ name: String) -> String? {
        headers.last { $0.name.lowercased() == name.lowercased() }?.value
    }
}

/// Status and headers of the final response (after redirects).
public struct HTTPResponse: Sendable {
    public var status: Int
    /// Lower-cased names; the last value of a repeated header wins.
    public var headers: [String: String]
    public var effectiveURL: String
    /// Whether the server's last challenge offered Basic authentication.
    public var offersBasic = false

    public init(status: Int, headers: [String: String] = [:], effectiveURL: String = "") {
        self.status = status
        self.headers = headers
        self.effectiveURL = effectiveURL
    }

    public subscript(header name: String) -> String? { headers[name.lowercased()] }

    public var isSuccess: Bool { (200..<300).contains(status) }

    /// `Content-Range: bytes a-b/total` → (a, b, total); total nil for `*`.
    public var contentRange: (first: Int64, last: Int64, total: Int64?)? {
        guard let value = self[header: "content-range"], value.hasPrefix("bytes ") else { return nil }
        let spec = value.dropFirst(6)
        let parts = spec.split(separator: "/", maxSplits: 1)
        guard parts.count == 2 else { return nil }
        let bounds = parts[0].split(separator: "-", maxSplits: 1)
        guard bounds.count == 2, let first = Int64(bounds[0]), let last = Int64(bounds[1]) else { return nil }
        return (first, last, Int64(parts[1]))
    }

    /// `Retry-After` in seconds (the date form counts as one second).
    public var retryAfter: Int? {
        guard let value = self[header: "retry-after"] else { return nil }
        return Int(value.trimmed) ?? 1
    }
}

public struct HTTPError: Error, CustomStringConvertible, Sendable, Equatable {
    public enum Kind: Sendable, Equatable {
        /// The server could not be reached at all: no address, connection refused.
        case unreachable
        /// The connection broke or stalled: reset, timeout, TLS.
        case network
        /// Our own callback stopped the transfer (a newer request made it useless).
        case cancelled
    }

    public let kind: Kind
    public let message: String

    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    public var description: String { message }
}

extension String {
    /// Without blanks and line breaks at either end (header values).
    /// By scalars: "\r\n" is one Character, which a comparison with "\r" or "\n" never matches.
    var trimmed: String {
        var scalars = Substring(self).unicodeScalars
        func blank(_ scalar: Unicode.Scalar) -> Bool { scalar == " " || scalar == "\t" || scalar == "\r" || scalar == "\n" }
        while let first = scalars.first, blank(first) { scalars.removeFirst() }
        while let last = scalars.last, blank(last) { scalars.removeLast() }
        return String(scalars)
    }
}
