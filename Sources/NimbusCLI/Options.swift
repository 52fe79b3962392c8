import Foundation
import NimbusConfig

/// The options every `nimbus` command takes, wherever they stand on the line.
struct Options {
    /// `--config`, else the file the daemon would read (`nimbusd`'s search order).
    var configPath = ConfigSearch.find(home: PathExpansion.currentHome(), environment: ProcessInfo.processInfo.environment)
        ?? "/etc/nimbus/nimbusd.conf"
    var host: String?
    var port: Int?
    var wait = false
    var playlist = false
    /// The words left: the command and its operands.
    var words: [String] = []
    /// `--KEY VALUE` pairs of `accounts add` (the account's settings).
    var settings: [(key: String, value: String)] = []

    init(_ arguments: [String]) {
        var index = 0
        func value(_ name: String) -> String {
            index += 1
            guard index < arguments.count else { Console.fail("\(name) needs a value") }
            return arguments[index]
        }
        while index < arguments.count {
            switch arguments[index] {
            case "--config": configPath = value("--config")
            case "--host": host = value("--host")
            case "--port":
                let text = value("--port")
                guard let number = Int(text), (1...65535).contains(number) else { Console.fail("--port: \"\(text)\" is not a port") }
                port = number
            case "--wait": wait = true
            case "--playlist": playlist = true
            case let word where word.hasPrefix("--") && word.count > 2:
                // Only `accounts add` takes settings as options; anything else is a mistake.
                guard words.first == "accounts", words.dropFirst().first == "add" else { Console.fail("unknown option \(word)\n\(CLI.usage)") }
                settings.append((String(word.dropFirst(2)), value(word)))
            case let word: words.append(word)
            }
            index += 1
        }
    }

    /// The config file; nil (with the daemon's defaults) when it does not exist and the user
    /// did not name one.
    func configuration(required: Bool) -> DaemonConfiguration? {
        do {
            return try DaemonConfiguration.from(try ConfigFile.load(path: configPath))
        } catch {
            if required { Console.fail("\(configPath): \(error.description)") }
            return nil
        }
    }

    func address(_ configuration: DaemonConfiguration?) -> DaemonAddress {
        DaemonAddress(configuration: configuration, host: host, port: port)
    }
}
