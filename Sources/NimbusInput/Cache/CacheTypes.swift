/// Why bytes are fetched; also the fetch order when several wait (lower first).
public enum FetchPurpose: Int, Sendable, Comparable, CaseIterable {
    case playing = 0
    case seek = 1
    case prefetch = 2
    case indexing = 3
    case pinning = 4

    public static func < (lhs: FetchPurpose, rhs: FetchPurpose) -> Bool { lhs.rawValue < rhs.rawValue }

    public var name: String {
        switch self {
        case .playing: "playing"
        case .seek: "seek"
        case .prefetch: "prefetch"
        case .indexing: "indexing"
        case .pinning: "pinning"
        }
    }
}

/// What went wrong fetching from a remote file.
public struct RemoteError: Error, CustomStringConvertible, Sendable, Equatable {
    public enum Kind: Sendable, Equatable {
        /// The file is no longer the version the cache holds (validator mismatch).
        case changed
        case notFound
        /// Credentials are missing, expired beyond refresh, or refused.
        case unauthorized
        /// Network trouble, 5xx, throttling: worth retrying from where it stopped.
        case transient
        /// Anything else: retrying will not help.
        case permanent
    }

    public let kind: Kind
    public let message: String
    /// A transient error where no connection could be made at all (server down, no network).
    public let unreachable: Bool
    /// Seconds the server asked to wait before the next try (429, 503 with Retry-After).
    public let retryAfter: Int?

    public init(_ kind: Kind, _ message: String, unreachable: Bool = false, retryAfter: Int? = nil) {
        self.kind = kind
        self.message = message
        self.unreachable = unreachable
        self.retryAfter = retryAfter
    }

    public var description: String { message }
}

/// Fetches bytes of one remote file (one version of it): the provider's part of the cache.
/// Implementations resolve download links, refresh tokens and send validators; the cache
/// resumes interrupted fetches, waiting as long as a Retry-After asks.
public protocol RemoteSource: Sendable {
    /// Delivers the bytes of `range` in order to `sink` until it returns false or the range
    /// ends; a response that ends early simply stops delivering.
    func fetch(_ range: Range<Int64>, purpose: FetchPurpose, into sink: (UnsafeRawBufferPointer) -> Bool) throws(RemoteError)
}

/// One version of one remote file: (account, provider file id, content version), never a URL.
public struct CacheKey: Hashable, Sendable, CustomStringConvertible {
    public let account: String
    public let fileID: String
    public let version: String

    public init(account: String, fileID: String, version: String) {
        self.account = account
        self.fileID = fileID
        self.version = version
    }

    /// The entry's file name: a 64-bit FNV-1a hash of the three parts, as hex.
    public var fileName: String {
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325
        for byte in Array((account + "\u{0}" + fileID + "\u{0}" + version).utf8) {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01B3
        }
        let hex = String(hash, radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex
    }

    public var description: String { "\(account):\(fileID)@\(version)" }
}
