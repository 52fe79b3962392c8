import NimbusModel

/// Splits one request line the way MPD 0.23's tokenizer does.
///
/// Lines reach here with the newline removed. The rules that matter to clients: the command
/// name is a letter followed by letters, digits or `_`; arguments are unquoted words (bytes
/// above 0x20 except quotes, backslash literal) or double-quoted strings where a backslash
/// escapes the next byte; a closing quote must be followed by whitespace.
public enum Tokenizer {
    public enum Failure: Error, Equatable, Sendable {
        /// The line does not start with a lower-case letter: MPD assumes a misrouted HTTP request
        /// and closes the connection without replying.
        case notACommand
        /// The command word is malformed: MPD answers with an ACK and then closes.
        case invalidCommandName
        /// An argument is malformed: an ordinary ACK with code 5, the connection stays.
        case argument(String)
        /// More than `maximumArguments`: an ordinary ACK with code 2.
        case tooManyArguments

        public var message: String {
            switch self {
            case .notACommand: return "Letter expected"
            case .invalidCommandName: return "Invalid word character"
            case .argument(let message): return message
            case .tooManyArguments: return "Too many arguments"
            }
        }
    }

    public struct Request: Equatable, Sendable {
        public var name: String
        public var arguments: [String]
        public init(name: String, arguments: [String]) {
            self.name = name
            self.arguments = arguments
        }
    }

    /// MPD rejects requests with more arguments than this (COMMAND_ARGV_MAX: two per tag type,
    /// plus two).
    public static let maximumArguments = 2 + TagType.allCases.count * 2

    /// Removes trailing bytes ≤ 0x20 (so `ping\r` is `ping`). A NUL byte stays: MPD's C strings
    /// end there, so `kill\0junk` would run `kill`; here it is a malformed request.
    public static func trimmedLine(_ bytes: ArraySlice<UInt8>) -> ArraySlice<UInt8> {
        var end = bytes.endIndex
        while end > bytes.startIndex, bytes[end - 1] <= 0x20, bytes[end - 1] != 0 { end -= 1 }
        return bytes[bytes.startIndex..<end]
    }

    public static func startsLikeCommand(_ line: ArraySlice<UInt8>) -> Bool {
        guard let first = line.first else { return false }
        return first >= UInt8(ascii: "a") && first <= UInt8(ascii: "z")
    }

    public static func tokenize(_ line: ArraySlice<UInt8>) throws(Failure) -> Request {
        let end = try commandWordEnd(line)
        let name = String(decoding: line[line.startIndex..<end], as: UTF8.self)
        return Request(name: name, arguments: try arguments(line, from: end))
    }

    /// Where the command word ends: the server looks the word up as bytes and makes no string
    /// of a name it knows (the table has it), which is a tenth of a `ping` in a command list.
    public static func commandWordEnd(_ line: ArraySlice<UInt8>) throws(Failure) -> Int {
        guard startsLikeCommand(line) else { throw .notACommand }
        var index = line.startIndex
        while index < line.endIndex, !isSeparator(line[index]) {
            guard isWordCharacter(line[index]) else { throw .invalidCommandName }
            index += 1
        }
        return index
    }

    /// The arguments after the command word that ends at `start`.
    public static func arguments(_ line: ArraySlice<UInt8>, from start: Int) throws(Failure) -> [String] {
        var arguments: [String] = []
        var index = skipSeparators(line, from: start)
        while index < line.endIndex {
            if arguments.count == maximumArguments { throw .tooManyArguments }
            let (argument, next) = try line[index] == UInt8(ascii: "\"")
                ? quoted(line, from: index) : unquoted(line, from: index)
            arguments.append(argument)
            index = skipSeparators(line, from: next)
        }
        return arguments
    }

    private static func quoted(_ line: ArraySlice<UInt8>, from start: Int) throws(Failure) -> (String, Int) {
        var bytes: [UInt8] = []
        var index = start + 1
        while true {
            guard index < line.endIndex else { throw .argument("Missing closing '\"'") }
            var byte = line[index]
            if byte == UInt8(ascii: "\"") { break }
            if byte == UInt8(ascii: "\\") {
                index += 1
                guard index < line.endIndex else { throw .argument("Missing closing '\"'") }
                byte = line[index]
            }
            bytes.append(byte)
            index += 1
        }
        index += 1
        if index < line.endIndex, !isSeparator(line[index]) {
            throw .argument("Space expected after closing '\"'")
        }
        return (String(decoding: bytes, as: UTF8.self), index)
    }

    private static func unquoted(_ line: ArraySlice<UInt8>, from start: Int) throws(Failure) -> (String, Int) {
        var index = start
        while index < line.endIndex, !isSeparator(line[index]) {
            let byte = line[index]
            guard byte != UInt8(ascii: "\""), byte != UInt8(ascii: "'") else {
                throw .argument("Invalid unquoted character")
            }
            index += 1
        }
        return (String(decoding: line[start..<index], as: UTF8.self), index)
    }

    private static func skipSeparators(_ line: ArraySlice<UInt8>, from start: Int) -> Int {
        var index = start
        while index < line.endIndex, isSeparator(line[index]) { index += 1 }
        return index
    }

    private static func isSeparator(_ byte: UInt8) -> Bool { byte <= 0x20 && byte != 0 }

    private static func isWordCharacter(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "_"):
            return true
        default:
            return false
        }
    }
}
