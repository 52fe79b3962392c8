import CExpat
import NimbusSupport

/// One element of a parsed document. Elements are named by (namespace URI, local name), never
/// by prefix: WebDAV servers write `D:`, `lp1:` or `ns0:` for the same `DAV:` namespace, and
/// feeds mix `itunes:` and `media:` prefixes however they like.
public struct XMLElement: Sendable {
    public var namespace: String
    public var name: String
    /// By local name; an attribute in a namespace is keyed `URI name` (e.g. `http://www.w3.org/1999/xlink href`).
    public var attributes: [String: String]
    public var children: [XMLElement] = []
    /// The character data directly inside this element, CDATA sections included.
    public var text = ""

    public init(namespace: String, name: String, attributes: [String: String] = [:]) {
        self.namespace = namespace
        self.name = name
        self.attributes = attributes
    }

    public func first(_ name: String, namespace: String = "") -> XMLElement? {
        children.first { $0.name == name && $0.namespace == namespace }
    }

    public func all(_ name: String, namespace: String = "") -> [XMLElement] {
        children.filter { $0.name == name && $0.namespace == namespace }
    }

    /// Text of a descendant path in one namespace, e.g. `propstat/prop/getetag`.
    public func value(_ path: String, namespace: String = "") -> String? {
        var element = self
        for part in path.split(separator: "/") {
            guard let child = element.first(String(part), namespace: namespace) else { return nil }
            element = child
        }
        return element.text
    }
}

/// Documents parsed with expat (the parser MPD uses for XSPF, RSS and WebDAV) into a tree of
/// `XMLElement`s. Everything parsed here came from the network, so it is bounded and never
/// expands a declared entity: a document type that declares entities (the "billion laughs",
/// external entities) is refused outright, before any expansion; the five predefined entities
/// and character references still work. Encodings expat does not know itself (windows-1251,
/// KOI8-R …) are read through iconv when they are single-byte.
public enum XMLDocument {
    public struct Limits: Sendable {
        /// Elements nested deeper than this are refused (a stack-eating document).
        public var depth = 256
        /// Elements in the whole document.
        public var elements = 2_000_000
        /// Bytes of character data kept in the whole tree.
        public var text = 64 << 20

        public init() {}
    }

    public typealias Failure = DomainError<XMLDocument>

    public static func parse(_ bytes: [UInt8], limits: Limits = Limits()) throws(Failure) -> XMLElement {
        guard let parser = XML_ParserCreateNS(nil, namespaceSeparator) else { throw Failure("out of memory") }
        defer { XML_ParserFree(parser) }
        let builder = TreeBuilder(parser: parser, limits: limits)
        XML_SetUserData(parser, Unmanaged.passUnretained(builder).toOpaque())
        XML_SetElementHandler(parser, startElement, endElement)
        XML_SetCharacterDataHandler(parser, characterData)
        XML_SetEntityDeclHandler(parser, entityDeclaration)
        XML_SetUnknownEncodingHandler(parser, SingleByteEncoding.handler, nil)
        let status = withExtendedLifetime(builder) {
            bytes.withUnsafeBufferPointer { buffer in
                buffer.withMemoryRebound(to: CChar.self) { XML_Parse(parser, $0.baseAddress, Int32(buffer.count), 1) }
            }
        }
        if let refusal = builder.refusal { throw Failure(refusal) }
        guard status == XML_STATUS_OK else {
            let line = XML_GetCurrentLineNumber(parser)
            throw Failure("line \(line): \(String(cString: XML_ErrorString(XML_GetErrorCode(parser))))")
        }
        guard let root = builder.root else { throw Failure("no root element") }
        return root
    }

    /// Expat joins a namespace URI and a local name with this byte; a space cannot occur in
    /// either.
    static let namespaceSeparator = CChar(UInt8(ascii: " "))
}

/// Builds the tree from expat's callbacks; `refusal` says why parsing was stopped.
private final class TreeBuilder {
    let parser: XML_Parser
    let limits: XMLDocument.Limits
    var stack: [XMLElement] = []
    var root: XMLElement?
    var elements = 0
    var textBytes = 0
    var refusal: String?

    init(parser: XML_Parser, limits: XMLDocument.Limits) {
        self.parser = parser
        self.limits = limits
    }

    func refuse(_ reason: String) {
        if refusal == nil { refusal = reason }
        XML_StopParser(parser, 0)
    }

    static func split(_ name: UnsafePointer<CChar>) -> (namespace: String, name: String) {
        let full = String(cString: name)
        guard let space = full.lastIndex(of: " ") else { return ("", full) }
        return (String(full[..<space]), String(full[full.index(after: space)...]))
    }

    func start(_ name: UnsafePointer<CChar>, _ attributes: UnsafeMutablePointer<UnsafePointer<CChar>?>?) {
        elements += 1
        guard elements <= limits.elements else { return refuse("more than \(limits.elements) elements") }
        guard stack.count < limits.depth else { return refuse("elements nested deeper than \(limits.depth)") }
        let (namespace, local) = Self.split(name)
        var element = XMLElement(namespace: namespace, name: local)
        var index = 0
        while let key = attributes?[index], let value = attributes?[index + 1] {
            element.attributes[String(cString: key)] = String(cString: value)
            index += 2
        }
        stack.append(element)
    }

    func end() {
        guard let element = stack.popLast() else { return }
        if stack.isEmpty {
            root = element
        } else {
            stack[stack.count - 1].children.append(element)
        }
    }

    func text(_ data: UnsafePointer<CChar>, _ length: Int) {
        guard !stack.isEmpty else { return }
        textBytes += length
        guard textBytes <= limits.text else { return refuse("more than \(limits.text) bytes of text") }
        let bytes = UnsafeRawBufferPointer(start: data, count: length)
        stack[stack.count - 1].text += String(decoding: bytes, as: UTF8.self)
    }
}

private func builder(_ data: UnsafeMutableRawPointer?) -> TreeBuilder {
    Unmanaged<TreeBuilder>.fromOpaque(data!).takeUnretainedValue()
}

private let startElement: XML_StartElementHandler = { data, name, attributes in
    guard let name else { return }
    builder(data).start(name, attributes)
}

private let endElement: XML_EndElementHandler = { data, _ in builder(data).end() }

private let characterData: XML_CharacterDataHandler = { data, text, length in
    guard let text, length > 0 else { return }
    builder(data).text(text, Int(length))
}

private let entityDeclaration: XML_EntityDeclHandler = { data, _, _, _, _, _, _, _, _ in
    builder(data).refuse("the document declares entities (refused: entity expansion)")
}
