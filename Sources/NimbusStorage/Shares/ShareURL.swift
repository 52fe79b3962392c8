/// A network share's address as people and MPD write it: `smb://[user[:password]@]host[:port]/share/path`,
/// `sftp://…`, `ftp://…`, `ftps://…`, with options after `?` (`fingerprint=SHA256:…`, `key=/path`).
/// The password, if the address carries one, is split off at once: only `withoutPassword` is
/// ever shown, logged or saved.
public struct ShareURL: Sendable, Equatable {
    public static let schemes: Set<String> = ["smb", "sftp", "ftp", "ftps", "nfs"]

    public let scheme: String
    public let user: String?
    public let password: String?
    public let host: String
    public let port: Int?
    /// Percent-decoded, with a leading `/`, without a trailing one (`/` for the top).
    public let path: String
    public let options: [String: String]

    public init?(_ text: String) {
        guard let colon = text.range(of: "://") else { return nil }
        let scheme = text[..<colon.lowerBound].lowercased()
        guard Self.schemes.contains(scheme) else { return nil }
        self.scheme = scheme
        var rest = Substring(text[colon.upperBound...])
        var options: [String: String] = [:]
        if let question = rest.firstIndex(of: "?") {
            for pair in rest[rest.index(after: question)...].split(separator: "&") {
                let parts = pair.split(separator: "=", maxSplits: 1).map { HTTPHelpers.decode(String($0)) }
                guard let key = parts.first, !key.isEmpty else { continue }
                options[key] = parts.count > 1 ? parts[1] : ""
            }
            rest = rest[..<question]
        }
        self.options = options
        let slash = rest.firstIndex(of: "/") ?? rest.endIndex
        var authority = rest[..<slash]
        var rawPath = String(rest[slash...])
        if let at = authority.lastIndex(of: "@") {
            let userInfo = authority[..<at]
            authority = authority[authority.index(after: at)...]
            if let separator = userInfo.firstIndex(of: ":") {
                user = HTTPHelpers.decode(String(userInfo[..<separator]))
                password = HTTPHelpers.decode(String(userInfo[userInfo.index(after: separator)...]))
            } else {
                user = HTTPHelpers.decode(String(userInfo))
                password = nil
            }
        } else {
            user = nil
            password = nil
        }
        var hostPart = authority
        var port: Int?
        if let close = hostPart.lastIndex(of: "]") {
            // [::1]:2222
            let after = hostPart[hostPart.index(after: close)...]
            if after.hasPrefix(":") { port = Int(after.dropFirst()) }
            hostPart = hostPart[...close]
        } else if let separator = hostPart.lastIndex(of: ":") {
            guard let number = Int(hostPart[hostPart.index(after: separator)...]) else { return nil }
            port = number
            hostPart = hostPart[..<separator]
        }
        if let port, !(1...65535).contains(port) { return nil }
        guard !hostPart.isEmpty, !hostPart.contains(where: { $0 == " " || $0 == "/" || $0.asciiValue.map { $0 < 0x20 } ?? false }) else {
            return nil
        }
        host = String(hostPart)
        self.port = port
        rawPath = HTTPHelpers.decode(rawPath)
        while rawPath.hasSuffix("/") { rawPath.removeLast() }
        path = rawPath.isEmpty ? "/" : (rawPath.hasPrefix("/") ? rawPath : "/" + rawPath)
        if user?.isEmpty == true { return nil }
    }

    /// `host` or `host:port` (IPv6 literals keep their brackets).
    public var authority: String { port.map { "\(host):\($0)" } ?? host }

    /// The address without its password (and without options that carry none): what
    /// `listmounts`, the log and the mounts file show.
    public var withoutPassword: String {
        var text = scheme + "://"
        if let user { text += HTTPHelpers.encode(user, keepSlash: false) + "@" }
        text += authority + (path == "/" ? "/" : HTTPHelpers.encode(path))
        let shown = options.filter { Self.publicOptions.contains($0.key) }.sorted { $0.key < $1.key }
        if !shown.isEmpty {
            text += "?" + shown.map { $0.key + "=" + HTTPHelpers.encode($0.value).replacingOccurrences(of: "%3A", with: ":") }
                .joined(separator: "&")
        }
        return text
    }

    /// Options an address may carry (the rest are settings the daemon adds, not shown).
    public static let publicOptions: Set<String> = ["fingerprint", "key", "workgroup", "implicit", "version", "nfsport", "uid", "gid"]

    /// A URL of `relative` (`/`-separated, below `path`) for libsmbclient or libcurl, percent-encoded,
    /// with no credentials in it (they go to the library separately).
    public func location(_ relative: String, directory: Bool = false) -> String {
        var full = path == "/" ? "" : path
        if !relative.isEmpty { full += "/" + relative }
        if directory || full.isEmpty { full += "/" }
        return scheme + "://" + authority + HTTPHelpers.encode(full)
    }

    /// The share's address for a log line or an error message.
    public var shown: String {
        scheme + "://" + (user.map { HTTPHelpers.encode($0, keepSlash: false) + "@" } ?? "") + authority
            + (path == "/" ? "/" : HTTPHelpers.encode(path))
    }
}
