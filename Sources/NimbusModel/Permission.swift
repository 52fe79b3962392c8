/// What a connection may do; MPD's permission bits and their config names.
public struct Permission: OptionSet, Sendable, Hashable {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    public static let read = Permission(rawValue: 1)
    public static let add = Permission(rawValue: 2)
    public static let control = Permission(rawValue: 4)
    public static let admin = Permission(rawValue: 8)
    public static let player = Permission(rawValue: 16)

    public static let none: Permission = []
    public static let all: Permission = [.read, .add, .control, .admin, .player]

    public struct ParseError: Error, Equatable, CustomStringConvertible {
        public let name: String
        public var description: String { "unknown permission \"\(name)\"" }
    }

    /// Parses a comma-separated list such as `read,add,control`; empty items are ignored and an
    /// empty string means no permission. `control` implies `player`, which 0.23 split off it.
    public init(parsing list: String) throws(ParseError) {
        var result: Permission = []
        for item in list.split(separator: ",", omittingEmptySubsequences: true) {
            switch item {
            case "read": result.insert(.read)
            case "add": result.insert(.add)
            case "player": result.insert(.player)
            case "control": result.formUnion([.control, .player])
            case "admin": result.insert(.admin)
            default: throw ParseError(name: String(item))
            }
        }
        self = result
    }

    /// The config names, comma-separated (`read,add,player`): what `init(parsing:)` reads back.
    public var names: String {
        [(Permission.read, "read"), (.add, "add"), (.player, "player"), (.control, "control"), (.admin, "admin")]
            .filter { contains($0.0) }.map(\.1).joined(separator: ",")
    }
}
