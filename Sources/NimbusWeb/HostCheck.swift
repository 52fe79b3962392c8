import Glibc

/// Which `Host` a request may name and which `Origin` a WebSocket may come from: the guard
/// against DNS rebinding (a page on some web site whose name is made to resolve to the box
/// must not reach it through a visitor's browser) and against other sites' pages opening a
/// WebSocket to the box. A request may name the box by an IP address (any: the box's
/// addresses change with the LAN, and an attacker cannot make a browser send a literal
/// address for a name it controls), `localhost`, the host name, `NAME.local`, or a name from
/// the `web` block; a WebSocket's `Origin`, when a browser sends one, must be the page's own.
public struct HostCheck: Sendable, Equatable {
    /// Lower-case names, without ports.
    public let names: Set<String>

    public init(extraNames: [String] = [], hostName: String? = HostCheck.systemHostName()) {
        var names: Set<String> = ["localhost"]
        if let hostName, !hostName.isEmpty {
            let lowered = hostName.lowercased()
            names.insert(lowered)
            let short = lowered.split(separator: ".").first.map(String.init) ?? lowered
            names.insert(short)
            names.insert(short + ".local")
        }
        for name in extraNames { names.insert(name.lowercased()) }
        self.names = names
    }

    public static func systemHostName() -> String? {
        var buffer = [CChar](repeating: 0, count: 256)
        guard gethostname(&buffer, buffer.count - 1) == 0 else { return nil }
        return text(buffer)
    }

    /// Whether a request naming `host` (the `Host` header, port included) is for this box.
    public func allows(host: String) -> Bool {
        guard let name = Self.name(of: host) else { return false }
        return Self.isAddressLiteral(name) || names.contains(name)
    }

    /// Whether a WebSocket from `origin` (nil: not a browser) to `host` may open.
    public func allows(origin: String?, host: String) -> Bool {
        guard let origin else { return true }
        let lowered = origin.lowercased()
        return lowered == "http://" + host.lowercased() || lowered == "https://" + host.lowercased()
    }

    /// The name part of a `Host` value: `[::1]:6680` → `::1`, `box.local:6680` → `box.local`;
    /// nil when it is not a plausible host.
    static func name(of host: String) -> String? {
        var text = Substring(host.lowercased())
        guard !text.isEmpty, text.utf8.count <= 255 else { return nil }
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]") else { return nil }
            let rest = text[text.index(after: close)...]
            guard rest.isEmpty || Self.isPort(rest) else { return nil }
            return String(text[text.index(after: text.startIndex)..<close])
        }
        if let colon = text.lastIndex(of: ":") {
            guard Self.isPort(text[colon...]) else { return nil }
            text = text[..<colon]
        }
        if text.hasSuffix(".") { text = text.dropLast() }
        guard !text.isEmpty, text.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "-" || $0 == "." }) else { return nil }
        return String(text)
    }

    private static func isPort(_ text: Substring) -> Bool {
        text.hasPrefix(":") && text.count > 1 && text.count <= 6 && text.dropFirst().allSatisfy(\.isASCII) && text.dropFirst().allSatisfy(\.isNumber)
    }

    /// An IPv4 or IPv6 address written out (what no attacker's DNS name can be).
    static func isAddressLiteral(_ name: String) -> Bool {
        var v4 = in_addr()
        var v6 = in6_addr()
        return inet_pton(AF_INET, name, &v4) == 1 || inet_pton(AF_INET6, name, &v6) == 1
    }
}
