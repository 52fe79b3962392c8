/// Writes a `subsonic-response` as XML (the default) or JSON (`f=json`), and JSONP
/// (`f=jsonp&callback=NAME`) for the old browser clients.
public enum SubsonicFormat: Sendable, Equatable {
    case xml
    case json
    case jsonp(callback: String)

    public init(_ argument: String?, callback: String?) {
        switch argument {
        case "json": self = .json
        case "jsonp":
            // Only a plain JavaScript name: anything else would let a page inject script.
            let name = callback ?? ""
            let valid = !name.isEmpty && name.count <= 64 && name.utf8.allSatisfy { byte in
                (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A) || byte == 0x5F || byte == 0x2E || byte == 0x24
            }
            self = valid ? .jsonp(callback: name) : .json
        default: self = .xml
        }
    }

    public var contentType: String {
        switch self {
        case .xml: return "text/xml; charset=utf-8"
        case .json: return "application/json; charset=utf-8"
        case .jsonp: return "application/javascript; charset=utf-8"
        }
    }

    public func encode(_ root: SubsonicNode) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(root.children.isEmpty ? 1024 : 16 * 1024)
        switch self {
        case .xml:
            out.append(contentsOf: #"<?xml version="1.0" encoding="UTF-8"?>"#.utf8)
            out.append(0x0A)
            Self.xml(root, into: &out, root: true)
        case .json:
            Self.jsonDocument(root, into: &out)
        case .jsonp(let callback):
            out.append(contentsOf: callback.utf8)
            out.append(UInt8(ascii: "("))
            Self.jsonDocument(root, into: &out)
            out.append(contentsOf: ");".utf8)
        }
        return out
    }

    static let namespace = "http://subsonic.org/restapi"

    private static func xml(_ node: SubsonicNode, into out: inout [UInt8], root: Bool) {
        out.append(UInt8(ascii: "<"))
        out.append(contentsOf: node.name.utf8)
        if root { out += Array(" xmlns=\"\(namespace)\"".utf8) }
        for (key, value) in node.attributes {
            out.append(0x20)
            out.append(contentsOf: key.utf8)
            out.append(contentsOf: "=\"".utf8)
            escape(value.text, into: &out)
            out.append(UInt8(ascii: "\""))
        }
        if node.children.isEmpty && node.text == nil && node.values.isEmpty {
            out.append(contentsOf: "/>".utf8)
            return
        }
        out.append(UInt8(ascii: ">"))
        if let text = node.text { escape(text, into: &out) }
        for (name, values) in node.values {
            for value in values {
                out.append(contentsOf: "<\(name)>".utf8)
                escape(value.text, into: &out)
                out.append(contentsOf: "</\(name)>".utf8)
            }
        }
        for child in node.children { xml(child, into: &out, root: false) }
        out.append(contentsOf: "</\(node.name)>".utf8)
    }

    /// Attribute and text escaping; characters XML 1.0 cannot carry at all (most C0
    /// controls, from a tag written badly) are dropped rather than breaking the parser.
    private static func escape(_ text: String, into out: inout [UInt8]) {
        var text = text
        let plain = text.withUTF8 { bytes in
            guard !bytes.contains(where: { $0 < 0x20 || $0 == UInt8(ascii: "&") || $0 == UInt8(ascii: "<") || $0 == UInt8(ascii: ">") || $0 == UInt8(ascii: "\"") })
            else { return false }
            out.append(contentsOf: bytes)
            return true
        }
        if plain { return }
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "&"): out.append(contentsOf: "&amp;".utf8)
            case UInt8(ascii: "<"): out.append(contentsOf: "&lt;".utf8)
            case UInt8(ascii: ">"): out.append(contentsOf: "&gt;".utf8)
            case UInt8(ascii: "\""): out.append(contentsOf: "&quot;".utf8)
            case 0x09: out.append(contentsOf: "&#9;".utf8)
            case 0x0A: out.append(contentsOf: "&#10;".utf8)
            case 0x0D: out.append(contentsOf: "&#13;".utf8)
            case 0..<0x20: continue
            default: out.append(byte)
            }
        }
    }

    private static func jsonDocument(_ root: SubsonicNode, into out: inout [UInt8]) {
        out.append(contentsOf: "{\"subsonic-response\":".utf8)
        json(root, into: &out)
        out.append(UInt8(ascii: "}"))
    }

    private static func json(_ node: SubsonicNode, into out: inout [UInt8]) {
        out.append(UInt8(ascii: "{"))
        var first = true
        // Names are the endpoints' own identifiers: nothing in them to escape.
        func key(_ name: String) {
            if !first { out.append(UInt8(ascii: ",")) }
            first = false
            out.append(UInt8(ascii: "\""))
            var name = name
            name.withUTF8 { out.append(contentsOf: $0) }
            out.append(UInt8(ascii: "\""))
            out.append(UInt8(ascii: ":"))
        }
        for (name, value) in node.attributes {
            key(name)
            switch value {
            case .string(let text): string(text, into: &out)
            case .int(let number): integer(number, into: &out)
            case .bool(let flag): out.append(contentsOf: flag ? Self.trueBytes : Self.falseBytes)
            case .double(let number): out.append(contentsOf: (number.isFinite ? value.text : "0").utf8)
            }
        }
        if let text = node.text {
            key("value")
            string(text, into: &out)
        }
        for (name, values) in node.values {
            key(name)
            out.append(UInt8(ascii: "["))
            for (index, value) in values.enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                if case .string(let text) = value { string(text, into: &out) } else { out.append(contentsOf: value.text.utf8) }
            }
            out.append(UInt8(ascii: "]"))
        }
        // The names written so far: a handful at most, so a list beats hashing (and a song,
        // with no children, allocates nothing).
        var done: [String] = []
        for child in node.children where !done.contains(child.name) {
            done.append(child.name)
            key(child.name)
            if node.lists.contains(child.name) {
                out.append(UInt8(ascii: "["))
                var firstItem = true
                for item in node.children where item.name == child.name {
                    if !firstItem { out.append(UInt8(ascii: ",")) }
                    firstItem = false
                    json(item, into: &out)
                }
                out.append(UInt8(ascii: "]"))
            } else {
                json(child, into: &out)
            }
        }
        for list in node.lists where !done.contains(list) {
            key(list)
            out.append(contentsOf: "[]".utf8)
        }
        out.append(UInt8(ascii: "}"))
    }

    private static let trueBytes = Array("true".utf8), falseBytes = Array("false".utf8)

    /// Digits written straight into the answer (a String per number was most of their cost).
    private static func integer(_ number: Int64, into out: inout [UInt8]) {
        if number < 0 { out.append(UInt8(ascii: "-")) }
        var magnitude = number.magnitude
        var digits: (UInt64, UInt64, UInt64) = (0, 0, 0)  // 24 bytes: room for 20 digits
        var count = 0
        withUnsafeMutableBytes(of: &digits) { raw in
            repeat {
                raw[count] = UInt8(ascii: "0") + UInt8(magnitude % 10)
                magnitude /= 10
                count += 1
            } while magnitude > 0
            for index in stride(from: count - 1, through: 0, by: -1) { out.append(raw[index]) }
        }
    }

    private static func string(_ text: String, into out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        var text = text
        text.withUTF8 { bytes in
            // Most strings need no escape: copied in one piece.
            guard bytes.contains(where: { $0 < 0x20 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") }) else {
                return out.append(contentsOf: bytes)
            }
            for byte in bytes {
                switch byte {
                case UInt8(ascii: "\""): out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\"")])
                case UInt8(ascii: "\\"): out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\\")])
                case 0x0A: out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "n")])
                case 0x0D: out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "r")])
                case 0x09: out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "t")])
                case 0..<0x20:
                    let digits = Array("0123456789abcdef".utf8)
                    out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "u"), 0x30, 0x30, digits[Int(byte >> 4)], digits[Int(byte & 15)]])
                default: out.append(byte)
                }
            }
        }
        out.append(UInt8(ascii: "\""))
    }
}
