/// The Subsonic API's error codes, as the specification numbers them; sent with HTTP 200
/// and `status="failed"` (clients read the code, not the HTTP status).
public struct SubsonicError: Error, Sendable, Equatable {
    public var code: Int
    public var message: String

    public init(_ code: Int, _ message: String) {
        self.code = code
        self.message = message
    }

    public static func missing(_ name: String) -> SubsonicError { SubsonicError(10, "Required parameter is missing: \(name)") }
    public static func invalid(_ name: String) -> SubsonicError { SubsonicError(10, "Invalid value for parameter: \(name)") }
    public static let wrongCredentials = SubsonicError(40, "Wrong username or password")
    public static let notAuthorized = SubsonicError(50, "User is not authorized for the given operation")
    public static func notFound(_ what: String) -> SubsonicError { SubsonicError(70, "\(what) not found") }
}

/// A request's arguments (query string and form body together), with the checks every
/// endpoint needs: a required one missing or given twice is error 10, a number is clamped to
/// what the endpoint serves rather than trusted.
public struct SubsonicArguments: Sendable {
    public let pairs: [(name: String, value: String)]

    public init(_ pairs: [(name: String, value: String)]) { self.pairs = pairs }

    public func all(_ name: String) -> [String] { pairs.compactMap { $0.name == name ? $0.value : nil } }

    /// The one value of `name`, nil when absent; given twice with different values is an error.
    public func optional(_ name: String) throws(SubsonicError) -> String? {
        let values = all(name)
        guard let first = values.first else { return nil }
        guard values.allSatisfy({ $0 == first }) else { throw SubsonicError(10, "Parameter given more than once: \(name)") }
        return first
    }

    public func required(_ name: String) throws(SubsonicError) -> String {
        guard let value = try optional(name), !value.isEmpty else { throw .missing(name) }
        return value
    }

    /// The most items one list answer carries, for every list endpoint alike (`search3`'s
    /// counts, `getAlbumList2`'s size, `getSongsByGenre`, `getTopSongs`, …; not
    /// `getRandomSongs`, which the API caps at 500): far above any client's page (Symfonium
    /// pages by 500, others by 1,000), so a client that stops at the first short page sees the
    /// whole library. It bounds one answer's memory (about 8 MB of JSON at 10,000 songs).
    public static let pageLimit = 10_000

    /// How many items a list endpoint is asked for (`name`, else `fallback`), up to `pageLimit`.
    public func count(_ name: String, default fallback: Int) throws(SubsonicError) -> Int {
        try int(name, default: fallback, range: 0...Self.pageLimit)
    }

    /// A whole number within `range` (clamped); absent gives `fallback`; not a number is error 10.
    public func int(_ name: String, default fallback: Int, range: ClosedRange<Int>) throws(SubsonicError) -> Int {
        guard let text = try optional(name), !text.isEmpty else { return fallback }
        guard let value = Int(text) ?? (text.first == "-" ? Int.min : text.allSatisfy(\.isNumber) ? Int.max : nil) else {
            throw .invalid(name)
        }
        return min(max(value, range.lowerBound), range.upperBound)
    }

    public func optionalInt(_ name: String, range: ClosedRange<Int>) throws(SubsonicError) -> Int? {
        guard let text = try optional(name), !text.isEmpty else { return nil }
        return try int(name, default: 0, range: range)
    }

    public func bool(_ name: String, default fallback: Bool) throws(SubsonicError) -> Bool {
        guard let text = try optional(name) else { return fallback }
        switch text.lowercased() {
        case "true", "1", "yes": return true
        case "false", "0", "no", "": return false
        default: throw .invalid(name)
        }
    }
}
