/// One element of a Subsonic answer, written once and encoded as either XML or JSON: the
/// two forms must carry the same fields (DSub and Amperfy read XML, Symfonium JSON), so no
/// endpoint builds text itself.
///
/// JSON's rules, as Subsonic servers write it: attributes become members with their types
/// (numbers and booleans unquoted), a child that may repeat (`list`) is always an array —
/// even with one element, even empty — and a single child an object.
public struct SubsonicNode: Sendable {
    public enum Value: Sendable, Equatable {
        case string(String)
        case int(Int64)
        case bool(Bool)
        case double(Double)
    }

    public var name: String
    public var attributes: [(String, Value)] = []
    public var children: [SubsonicNode] = []
    /// Child names that are lists (arrays in JSON), in the order they first appear.
    public var lists: [String] = []
    /// Text content (`<lyrics>…</lyrics>`; `value` in JSON).
    public var text: String?
    /// Lists of plain values (`<versions>1</versions>` repeated; `"versions":[1]` in JSON).
    public var values: [(String, [Value])] = []

    public init(_ name: String, _ attributes: [(String, Value)] = []) {
        self.name = name
        self.attributes = attributes
    }

    public mutating func set(_ key: String, _ value: String?) {
        if let value { attributes.append((key, .string(value))) }
    }

    public mutating func set(_ key: String, _ value: Int?) {
        if let value { attributes.append((key, .int(Int64(value)))) }
    }

    public mutating func set(_ key: String, _ value: Int64?) {
        if let value { attributes.append((key, .int(value))) }
    }

    public mutating func set(_ key: String, _ value: Bool?) {
        if let value { attributes.append((key, .bool(value))) }
    }

    public mutating func set(_ key: String, _ value: Double?) {
        if let value { attributes.append((key, .double(value))) }
    }

    /// Sets `key`, replacing a value it had (a song node made into a podcast episode).
    public mutating func put(_ key: String, _ value: Value?) {
        attributes.removeAll { $0.0 == key }
        if let value { attributes.append((key, value)) }
    }

    public func has(_ key: String) -> Bool { attributes.contains { $0.0 == key } }

    /// Adds a single child.
    public mutating func add(_ child: SubsonicNode) { children.append(child) }

    /// Adds a list of children named `name` (present in JSON as an array even when empty).
    public mutating func add(list name: String, _ items: [SubsonicNode]) {
        if !lists.contains(name) { lists.append(name) }
        children += items
    }
}

extension SubsonicNode.Value {
    var text: String {
        switch self {
        case .string(let value): return value
        case .int(let value): return String(value)
        case .bool(let value): return value ? "true" : "false"
        case .double(let value): return value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : String(value)
        }
    }
}
