import Foundation
import NimbusConfig
import NimbusStorage

/// `nimbus accounts`: every cloud account as the running daemon sees it — state, sign-in,
/// who is signed in, songs indexed, bytes cached and pinned, last update; `accounts add`,
/// `accounts remove` and `accounts types` as protocol commands. Without a running daemon
/// the listing says so and shows what the config and the token files tell.
struct Accounts {
    let options: Options

    func run() -> Int32 {
        let words = options.words
        switch words.dropFirst().first {
        case nil: return list()
        case "add":
            guard words.count == 4 else { Console.fail("usage: nimbus accounts add NAME TYPE [--KEY VALUE]…  (nimbus accounts types lists them)") }
            let settings = options.settings.map { DaemonLink.quoted($0.key) + " " + DaemonLink.quoted($0.value) }
            let link = DaemonLink.required(options)
            _ = link.fields((["addaccount", DaemonLink.quoted(words[2]), DaemonLink.quoted(words[3])] + settings).joined(separator: " "), failing: "cannot add \(words[2])")
            Console.say("Added \(words[2]). Sign in with: nimbus authorize \(words[2])")
            return 0
        case "remove":
            guard words.count == 3 else { Console.fail("usage: nimbus accounts remove NAME") }
            _ = DaemonLink.required(options).fields("removeaccount " + DaemonLink.quoted(words[2]), failing: "cannot remove \(words[2])")
            Console.say("Removed \(words[2]): its songs, pins, cached bytes and sign-in are gone.")
            return 0
        case "types":
            var lines: [String] = []
            for (key, value) in DaemonLink.required(options).fields("accounttypes", failing: "cannot list the types") {
                switch key {
                case "type": lines.append(value + ":")
                case "signin": lines[lines.count - 1] += " sign-in by \(value)"
                case "needs": lines[lines.count - 1] += " --\(value) VALUE"
                case "accepts": lines[lines.count - 1] += " [--\(value) VALUE]"
                default: break
                }
            }
            for line in lines { Console.say(line) }
            return 0
        case let word?:
            Console.fail("unknown accounts command \"\(word)\" (add, remove, types)")
        }
    }

    private func list() -> Int32 {
        let configuration = options.configuration(required: false)
        let address = options.address(configuration)
        guard let link = DaemonLink(address) else {
            Console.say("nimbusd is not running at \(address.description).")
            offline(configuration)
            return 1
        }
        switch link.request("listaccounts") {
        case .ack(let message):
            Console.fail("nimbusd refused listaccounts: \(message)")
        case .ok(let fields):
            let accounts = Self.blocks(fields, startingWith: "account")
            if accounts.isEmpty { Console.say("No cloud accounts are configured (see README, Connect your cloud).") }
            for account in accounts { Console.say(Self.describe(account)) }
        }
        return 0
    }

    /// `key: value` lines cut into one dictionary per record, each starting at `first`.
    static func blocks(_ fields: [(key: String, value: String)], startingWith first: String) -> [[String: String]] {
        var blocks: [[String: String]] = []
        for (key, value) in fields {
            if key == first { blocks.append([:]) }
            if !blocks.isEmpty { blocks[blocks.count - 1][key] = value }
        }
        return blocks
    }

    static func describe(_ account: [String: String]) -> String {
        let name = account["account"] ?? "?"
        var state = account["state"] ?? "?"
        switch state {
        case "sign-in needed": state += " — run: nimbus authorize \(name)"
        case "unreachable", "token refresh failed": state += account["since"].map { " since \(Self.local($0))" } ?? ""
        case "rate limited": state += account["until"].map { " until \(Self.local($0))" } ?? ""
        default: break
        }
        var lines = ["\(name) (\(account["type"] ?? "?")\(account["origin"] == "client" ? ", added by a client" : "")): \(state)"]
        if let signIn = account["signin"], !["signed in", "not needed"].contains(signIn) { lines.append("  sign-in: \(signIn)") }
        if let reason = account["reason"], account["state"] != "ok" { lines.append("  reason:  \(reason)") }
        lines.append("  user:    \(account["user"] ?? "unknown")")
        lines.append("  songs:   \(account["songs"] ?? "0") indexed")
        lines.append(
            "  cache:   \(Self.bytes(account["cached"])) cached, \(Self.bytes(account["pinned"])) pinned for offline use")
        lines.append("  updated: \(account["updated"].map(Self.local) ?? "never")")
        return lines.joined(separator: "\n")
    }

    /// Bytes as people read them: `0 B`, `512 KiB`, `1.4 GiB`.
    static func bytes(_ text: String?) -> String {
        var value = Double(text ?? "0") ?? 0
        for unit in ["B", "KiB", "MiB", "GiB"] {
            if value < 1024 || unit == "GiB" {
                return unit == "B" ? "\(Int(value)) B" : String(format: value < 10 ? "%.1f" : "%.0f", value) + " " + unit
            }
            value /= 1024
        }
        return "\(Int(value)) GiB"
    }

    /// An ISO 8601 time of the daemon's in the local time zone.
    static func local(_ iso: String) -> String {
        guard let date = ISO8601DateFormatter().date(from: iso) else { return iso }
        let format = DateFormatter()
        format.dateFormat = "yyyy-MM-dd HH:mm:ss zzz"
        return format.string(from: date)
    }

    /// What can be told without the daemon: which accounts have a sign-in saved.
    private func offline(_ configuration: DaemonConfiguration?) {
        guard let configuration else {
            Console.say("\(options.configPath) cannot be read either; name the config with --config FILE.")
            return
        }
        var warnings: [String] = []
        let registry = CloudProviderRegistry.standard
        let accounts = registry.accounts(
            configuration.cloud(warnings: &warnings), secretsDirectory: configuration.secretsDirectory, warnings: &warnings)
        for account in accounts {
            let secret = registry.plugin(forType: account.type)?.secretFile(account.settings).flatMap { account.settings[$0.setting] }
            let saved = secret.map { FileManager.default.isReadableFile(atPath: $0) } ?? false
            let state =
                secret == nil ? "no sign-in needed" : saved ? "sign-in saved" : "sign-in needed — run: nimbus authorize \(account.name)"
            Console.say("\(account.name) (\(account.type)): \(state)")
        }
    }
}
