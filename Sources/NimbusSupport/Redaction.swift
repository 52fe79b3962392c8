/// Credentials never leave the daemon in text: a URL a client queued as
/// `http://user:password@host/…` shows and logs as `http://host/…`.
public enum Redaction {
    public static func withoutCredentials(_ text: String) -> String {
        guard text.utf8.contains(UInt8(ascii: "@")), text.contains("://") else { return text }
        var result = ""
        var rest = Substring(text)
        while let separator = rest.range(of: "://") {
            result += rest[..<separator.upperBound]
            rest = rest[separator.upperBound...]
            let authorityEnd = rest.firstIndex { "/?#\"' \t\n<>".contains($0) } ?? rest.endIndex
            if let at = rest[..<authorityEnd].lastIndex(of: "@") { rest = rest[rest.index(after: at)...] }
        }
        return result + rest
    }
}
