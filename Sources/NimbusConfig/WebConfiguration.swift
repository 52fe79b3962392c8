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
            case "enabled":
                switch param.value {
                case "yes", "true", "1": web.enabled = true
                case "no", "false", "0": web.enabled = false
                default: throw ConfigError("enabled: Not a valid boolean (\"yes\" or \"no\"): \(param.value)", at: param.location)
                }
            case "port":
                guard let port = Int(param.value), (1...65535).contains(port) else {
                    throw ConfigError("port: \"\(param.value)\" is not a port", at: param.location)
                }
                web.port = port
            case "bind_to_address":
                guard ConfigReader.isPlausibleAddress(param.value), !param.value.hasPrefix("/"), !param.value.hasPrefix("@") else {
                    throw ConfigError("bind_to_address: \"\(param.value)\" is not an IP address or host name", at: param.location)
                }
                web.bindAddresses = (web.bindAddresses ?? []) + [param.value]
            case "host":
                web.hosts.append(param.value)
            default:
                warnings.append("\(param.location): unknown web setting '\(param.name)'; ignored")
            }
        }
        return web
    }
}
