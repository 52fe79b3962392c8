/// The `web { }` block: the page nimbusd serves for what MPD clients cannot show.
///
/// ```
/// web {
///     port            "6680"
///     bind_to_address "192.168.1.20"   # repeatable; default: the MPD port's addresses
///     host            "music.home.arpa" # repeatable: more names the box answers to
///     enabled         "no"              # no page at all
/// }
/// ```
public struct WebConfiguration: Sendable, Equatable {
    public var enabled = true
    public var port = 6680
    /// Nil: the addresses the MPD port listens on (sockets left out).
    public var bindAddresses: [String]?
    /// Names besides the box's own (host name, NAME.local, localhost) a request may use.
    public var hosts: [String] = []

    public init() {}

    /// The addresses to listen on, given the MPD port's.
    public func addresses(mpd: [String]) -> [String] {
        let network = (bindAddresses ?? mpd).filter { !$0.hasPrefix("/") && !$0.hasPrefix("@") }
        return network.isEmpty ? ["127.0.0.1"] : network
    }

    static func read(_ block: ConfigBlock, warnings: inout [String]) throws(ConfigError) -> WebConfiguration {
        var web = WebConfiguration()
        for param in block.params {
            switch param.name {
            case "enabled": web.enabled = try BlockValues.flag(param)
            case "port": web.port = try BlockValues.port(param)
            case "bind_to_address": web.bindAddresses = (web.bindAddresses ?? []) + [try BlockValues.networkAddress(param)]
            case "host":
                web.hosts.append(param.value)
            default:
                warnings.append("\(param.location): unknown web setting '\(param.name)'; ignored")
            }
        }
        return web
    }
}

/// The values the server blocks (`web`, `subsonic`) share, checked one way with one message.
enum BlockValues {
    static func flag(_ param: ConfigParam) throws(ConfigError) -> Bool {
        switch param.value {
        case "yes", "true", "1": return true
        case "no", "false", "0": return false
        default: throw ConfigError("\(param.name): Not a valid boolean (\"yes\" or \"no\"): \(param.value)", at: param.location)
        }
    }

    static func port(_ param: ConfigParam) throws(ConfigError) -> Int {
        guard let port = Int(param.value), (1...65535).contains(port) else {
            throw ConfigError("\(param.name): \"\(param.value)\" is not a port", at: param.location)
        }
        return port
    }

    /// An IP address or host name to listen on (sockets are the MPD port's alone).
    static func networkAddress(_ param: ConfigParam) throws(ConfigError) -> String {
        guard ConfigReader.isPlausibleAddress(param.value), !param.value.hasPrefix("/"), !param.value.hasPrefix("@") else {
            throw ConfigError("\(param.name): \"\(param.value)\" is not an IP address or host name", at: param.location)
        }
        return param.value
    }
}
