/// A small namespace-aware XML reader for WebDAV multistatus answers: elements are named by
/// (namespace URI, local name), never by prefix (servers use `D:`, `lp1:`, `ns0:` …), text
/// has its entities decoded. Not a general XML parser: no DTDs, processing instructions are
/// skipped, CDATA is kept as text.
struct XMLElement {
    var namespace: String
    var name: String
    var children: [XMLElement] = []
    var text = ""

    func first(_ name: String, namespace: String = "DAV:") -> XMLElement? {
        children.first { $0.name == name && $0.namespace == namespace }
    }

    func all(_ name: String, namespace: String = "DAV:") -> [XMLElement] {
        children.filter { $0.name == name && $0.namespace == namespace }
    }

    /// Text of a descendant path, e.g. `propstat/prop/getetag`.
    func value(_ path: String, namespace: String = "DAV:") -> String? {
        var element = self
        for part in path.split(separator: "/") {
            guard let child = element.first(String(part), namespace: namespace) else { return nil }
            element = child
        }
        return element.text
    }
}

enum XMLTree {
    struct Failure: Error {}

    static func parse(_ bytes: [UInt8]) throws(Failure) -> XMLElement {
        var parser = Parser(bytes: bytes)
        return try parser.document()
    }

    private struct Parser {
        let bytes: [UInt8]
        var index = 0
        var scopes: [[String: String]] = [["xml": "http://www.w3.org/XML/1998/namespace"]]

        init(bytes: [UInt8]) { self.bytes = bytes }

        mutating func document() throws(Failure) -> XMLElement {
            while index < bytes.count {
                skipSpace()
                guard index < bytes.count, bytes[index] == UInt8(ascii: "<") else { throw Failure() }
                if starts("<?") || starts("<!") {
                    skipPast(starts("<!--") ? "-->" : ">")
                    continue
                }
                return try element()
            }
            throw Failure()
        }

        mutating func element() throws(Failure) -> XMLElement {
            index += 1
            let qualified = name()
            var attributes: [(String, String)] = []
            while true {
                skipSpace()
                guard index < bytes.count else { throw Failure() }
                if bytes[index] == UInt8(ascii: "/") || bytes[index] == UInt8(ascii: ">") { break }
                let key = name()
                skipSpace()
                guard index < bytes.count, bytes[index] == UInt8(ascii: "=") else { throw Failure() }
                index += 1
                skipSpace()
                guard index < bytes.count else { throw Failure() }
                let quote = bytes[index]
                index += 1
                let start = index
                while index < bytes.count, bytes[index] != quote { index += 1 }
                attributes.append((key, decode(bytes[start..<index])))
                index += 1
            }
            var scope = scopes.last!
            for (key, value) in attributes where key == "xmlns" || key.hasPrefix("xmlns:") {
                scope[key == "xmlns" ? "" : String(key.dropFirst(6))] = value
            }
            scopes.append(scope)
            defer { scopes.removeLast() }
            let (prefix, local) = split(qualified)
            var result = XMLElement(namespace: scope[prefix] ?? "", name: local)
            if bytes[index] == UInt8(ascii: "/") {
                index += 2
                return result
            }
            index += 1
            while index < bytes.count {
                if starts("</") {
                    skipPast(">")
                    return result
                }
                if starts("<![CDATA[") {
                    let start = index + 9
                    skipPast("]]>")
                    result.text += String(decoding: bytes[start..<max(start, index - 3)], as: UTF8.self)
                } else if starts("<!--") || starts("<?") {
                    skipPast(starts("<!--") ? "-->" : "?>")
                } else if bytes[index] == UInt8(ascii: "<") {
                    result.children.append(try element())
                } else {
                    let start = index
                    while index < bytes.count, bytes[index] != UInt8(ascii: "<") { index += 1 }
                    result.text += decode(bytes[start..<index])
                }
            }
            throw Failure()
        }

        mutating func name() -> String {
            let start = index
            while index < bytes.count {
                let byte = bytes[index]
                if byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D || byte == UInt8(ascii: ">")
                    || byte == UInt8(ascii: "/") || byte == UInt8(ascii: "=")
                { break }
                index += 1
            }
            return String(decoding: bytes[start..<index], as: UTF8.self)
        }

        func split(_ qualified: String) -> (String, String) {
            guard let colon = qualified.firstIndex(of: ":") else { return ("", qualified) }
            return (String(qualified[..<colon]), String(qualified[qualified.index(after: colon)...]))
        }

        mutating func skipSpace() {
            while index < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[index]) { index += 1 }
        }

        func starts(_ text: String) -> Bool {
            let pattern = Array(text.utf8)
            return index + pattern.count <= bytes.count && Array(bytes[index..<(index + pattern.count)]) == pattern
        }

        mutating func skipPast(_ text: String) {
            while index < bytes.count, !starts(text) { index += 1 }
            index = min(bytes.count, index + text.utf8.count)
        }

        /// Text with `&amp;`, `&lt;`, `&gt;`, `&quot;`, `&apos;` and numeric references decoded.
        func decode(_ slice: ArraySlice<UInt8>) -> String {
            let text = String(decoding: slice, as: UTF8.self)
            guard text.contains("&") else { return text }
            var result = ""
            var rest = Substring(text)
            while let amp = rest.firstIndex(of: "&") {
                result += rest[..<amp]
                guard let semicolon = rest[amp...].firstIndex(of: ";") else { break }
                let entity = rest[rest.index(after: amp)..<semicolon]
                switch entity {
                case "amp": result += "&"
                case "lt": result += "<"
                case "gt": result += ">"
                case "quot": result += "\""
                case "apos": result += "'"
                default:
                    let number = entity.hasPrefix("#x") ? UInt32(entity.dropFirst(2), radix: 16)
                        : entity.hasPrefix("#") ? UInt32(entity.dropFirst()) : nil
                    if let number, let scalar = Unicode.Scalar(number) { result.unicodeScalars.append(scalar) } else { result += "&\(entity);" }
                }
                rest = rest[rest.index(after: semicolon)...]
            }
            return result + rest
        }
    }
}
