import Foundation

/// One `name "value"` line of a config file, remembering where it came from so every message
/// about it can name file and line.
public struct ConfigParam: Equatable, Sendable {
    public let name: String
    public let value: String
    public let location: ConfigLocation

    public init(name: String, value: String, location: ConfigLocation) {
        self.name = name
        self.value = value
        self.location = location
    }
}

/// A `name { … }` block such as `audio_output`.
public struct ConfigBlock: Equatable, Sendable {
    public let name: String
    public let location: ConfigLocation
    public var params: [ConfigParam]

    public init(name: String, location: ConfigLocation, params: [ConfigParam] = []) {
        self.name = name
        self.location = location
        self.params = params
    }

    /// The last value given for `key` (MPD lets later lines override earlier ones).
    public func value(_ key: String) -> String? { params.last { $0.name == key }?.value }
    public func param(_ key: String) -> ConfigParam? { params.last { $0.name == key } }
}

public struct ConfigLocation: Equatable, Sendable, CustomStringConvertible {
    public let file: String
    public let line: Int
    public init(file: String, line: Int) {
        self.file = file
        self.line = line
    }
    public var description: String { "\(file):\(line)" }
}

/// A config problem that stops the daemon: printed as `file:line: message`, exit status 1.
public struct ConfigError: Error, Equatable, CustomStringConvertible, Sendable {
    public let location: ConfigLocation?
    public let message: String

    /// A message quoting a huge value is cut: the point is where the problem is, not an echo.
    public init(_ message: String, at location: ConfigLocation?) {
        self.location = location
        self.message = message.count > 300 ? String(message.prefix(300)) + "…" : message
    }

    public var description: String { location.map { "\($0): \(message)" } ?? message }
}

/// The parsed file: top-level params and blocks in file order, includes already expanded.
///
/// Syntax follows MPD's ConfigFile.cxx: `#` comments, names of letters/digits/`_`, values in
/// double quotes with backslash escapes, `name {` opening a block closed by a lone `}`,
/// `include` and `include_optional` with paths relative to the including file.
public struct ConfigFile: Equatable, Sendable {
    public var params: [ConfigParam] = []
    public var blocks: [ConfigBlock] = []

    public init() {}

    public static func load(path: String) throws(ConfigError) -> ConfigFile {
        var file = ConfigFile()
        try file.include(path: path, from: nil, depth: 0)
        return file
    }

    public static func parse(_ text: String, file: String = "<string>") throws(ConfigError) -> ConfigFile {
        var result = ConfigFile()
        try result.read(text, file: file, depth: 0)
        return result
    }

    /// Names that only ever open a block, so a missing `{` gets MPD's precise message.
    public static let blockNames: Set<String> = [
        "audio_output", "decoder", "input", "input_cache", "playlist_plugin", "resampler", "filter",
        "database", "neighbors", "cloud",
    ]

    public func value(_ key: String) -> String? { params.last { $0.name == key }?.value }
    public func param(_ key: String) -> ConfigParam? { params.last { $0.name == key } }
    public func all(_ key: String) -> [ConfigParam] { params.filter { $0.name == key } }

    private mutating func include(path: String, from location: ConfigLocation?, depth: Int) throws(ConfigError) {
        guard depth < 16 else { throw ConfigError("include nesting too deep", at: location) }
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue {
            throw ConfigError("Failed to open '\(path)': Is a directory", at: location)
        }
        guard let data = FileManager.default.contents(atPath: path) else {
            let reason = FileManager.default.fileExists(atPath: path) ? "Permission denied" : "No such file or directory"
            throw ConfigError("Failed to open '\(path)': \(reason)", at: location)
        }
        try read(String(decoding: data, as: UTF8.self), file: path, depth: depth)
    }

    private mutating func read(_ text: String, file: String, depth: Int) throws(ConfigError) {
        var lines = Array(text.utf8).split(separator: 0x0A, omittingEmptySubsequences: false).makeIterator()
        var number = 0
        var openBlock: ConfigBlock?
        while let raw = lines.next() {
            number += 1
            let location = ConfigLocation(file: file, line: number)
            var scanner = LineScanner(raw)
            if scanner.atEndOrComment { continue }
            if openBlock != nil {
                if scanner.consume("}") {
                    guard scanner.atEndOrComment else { throw ConfigError("Unknown tokens after '}'", at: location) }
                    blocks.append(openBlock!)
                    openBlock = nil
                    continue
                }
                let (name, value) = try scanner.nameAndValue(at: location)
                openBlock!.params.append(ConfigParam(name: name, value: value, location: location))
                continue
            }
            let name = try scanner.word(at: location)
            if Self.blockNames.contains(name) && !scanner.peek("{") {
                throw ConfigError("'{' expected", at: location)
            }
            if scanner.consume("{") {
                guard scanner.atEndOrComment else { throw ConfigError("Unknown tokens after '{'", at: location) }
                openBlock = ConfigBlock(name: name, location: location)
                continue
            }
            let value = try scanner.valueAndEnd(at: location)
            if name == "include" || name == "include_optional" {
                let target = Self.resolve(value, relativeTo: file)
                if name == "include_optional" && !FileManager.default.fileExists(atPath: target) { continue }
                try include(path: target, from: location, depth: depth + 1)
                continue
            }
            params.append(ConfigParam(name: name, value: value, location: location))
        }
        if let openBlock {
            throw ConfigError("Expected '}' before end-of-file", at: ConfigLocation(file: file, line: max(number - 1, openBlock.location.line)))
        }
    }

    private static func resolve(_ path: String, relativeTo file: String) -> String {
        let expanded = PathExpansion.expand(path)
        if expanded.hasPrefix("/") { return expanded }
        return (file as NSString).deletingLastPathComponent + "/" + expanded
    }
}

/// Character-level reading of one config line.
private struct LineScanner {
    private let bytes: [UInt8]
    private var index = 0

    init(_ line: ArraySlice<UInt8>) {
        bytes = Array(line)
        skipBlanks()
    }

    var atEndOrComment: Bool { index >= bytes.count || bytes[index] == UInt8(ascii: "#") }

    func peek(_ character: Character) -> Bool {
        index < bytes.count && bytes[index] == character.asciiValue!
    }

    mutating func consume(_ character: Character) -> Bool {
        guard index < bytes.count, bytes[index] == character.asciiValue! else { return false }
        index += 1
        skipBlanks()
        return true
    }

    mutating func word(at location: ConfigLocation) throws(ConfigError) -> String {
        let start = index
        while index < bytes.count, !Self.isBlank(bytes[index]) {
            guard Self.isWordCharacter(bytes[index]) else { throw ConfigError("Invalid word character", at: location) }
            index += 1
        }
        guard index > start else { throw ConfigError("Letter expected", at: location) }
        let word = String(decoding: bytes[start..<index], as: UTF8.self)
        skipBlanks()
        return word
    }

    mutating func nameAndValue(at location: ConfigLocation) throws(ConfigError) -> (String, String) {
        let name = try word(at: location)
        return (name, try valueAndEnd(at: location))
    }

    mutating func valueAndEnd(at location: ConfigLocation) throws(ConfigError) -> String {
        if index < bytes.count, bytes[index] == UInt8(ascii: "{") {
            throw ConfigError("'{' is only allowed after a block name", at: location)
        }
        guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else {
            throw ConfigError(index < bytes.count ? "'\"' expected" : "Value missing", at: location)
        }
        index += 1
        var value: [UInt8] = []
        while true {
            guard index < bytes.count else { throw ConfigError("Missing closing '\"'", at: location) }
            var byte = bytes[index]
            if byte == UInt8(ascii: "\"") { break }
            if byte == UInt8(ascii: "\\") {
                index += 1
                guard index < bytes.count else { throw ConfigError("Missing closing '\"'", at: location) }
                byte = bytes[index]
            }
            value.append(byte)
            index += 1
        }
        index += 1
        if index < bytes.count, !Self.isBlank(bytes[index]) {
            throw ConfigError("Space expected after closing '\"'", at: location)
        }
        skipBlanks()
        guard atEndOrComment else { throw ConfigError("Unknown tokens after value", at: location) }
        return String(decoding: value, as: UTF8.self)
    }

    private mutating func skipBlanks() {
        while index < bytes.count, Self.isBlank(bytes[index]) { index += 1 }
    }

    private static func isBlank(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 || byte == 0x0D }

    private static func isWordCharacter(_ byte: UInt8) -> Bool {
        (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
            || byte == UInt8(ascii: "_")
    }
}
