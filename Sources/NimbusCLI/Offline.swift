import Foundation
import Glibc

/// `nimbus offline add|remove|list|pause|resume|retry`: the daemon's pin commands, with a
/// one-line summary per pin, progress bars for running downloads, and `--wait` to return
/// only when the pins are complete (exit 0) or cannot complete (exit 1, with the reason).
final class Offline {
    let options: Options
    /// Some request of this run was refused: the exit status says so.
    private var failed = false

    init(options: Options) { self.options = options }

    func run() -> Int32 {
        let words = Array(options.words.dropFirst())
        guard let action = words.first else { Console.fail("offline: say add, remove, list, pause, resume or retry\n\(CLI.usage)") }
        let uris = Array(words.dropFirst())
        let address = options.address(options.configuration(required: false))
        guard let link = DaemonLink(address) else { Console.fail("nimbusd is not running at \(address.description)") }
        switch action {
        case "add":
            guard !uris.isEmpty else { Console.fail("offline add: name the songs, folders or playlists to keep") }
            for uri in uris { pin(uri, link) }
        case "remove":
            guard !uris.isEmpty else { Console.fail("offline remove: name the pins to remove") }
            for uri in uris {
                let removed = ask(link, options.playlist ? "unpinplaylist" : "unpin", uri, orElse: "unpinplaylist")
                if removed { Console.say("\(uri): no longer kept offline; its bytes are ordinary cache now") }
            }
        case "list":
            show(link, only: uris)
            return 0
        case "pause", "resume", "retry":
            for uri in uris.isEmpty ? [nil] : uris.map(Optional.some) {
                _ = ask(link, action + "pin", uri)
            }
        default:
            Console.fail("offline: unknown action \"\(action)\"\n\(CLI.usage)")
        }
        guard options.wait, action != "remove", action != "pause" else {
            show(link, only: uris, bars: false)
            return failed ? 1 : 0
        }
        return waitForCompletion(link, uris: uris)
    }

    private func pin(_ uri: String, _ link: DaemonLink) {
        if ask(link, options.playlist ? "pinplaylist" : "pin", uri, orElse: "pinplaylist") {
            Console.say("\(uri): kept offline")
        }
    }

    /// Sends `command "argument"`; a "no such" answer may be retried as the playlist form.
    private func ask(_ link: DaemonLink, _ command: String, _ argument: String?, orElse fallback: String? = nil) -> Bool {
        let request = command + (argument.map { " " + DaemonLink.quoted($0) } ?? "")
        switch link.request(request) {
        case .ok: return true
        case .ack(let message):
            if let fallback, !options.playlist, message.contains("[50@"), let argument,
                case .ok = link.request(fallback + " " + DaemonLink.quoted(argument))
            {
                return true
            }
            Console.warn("\(argument ?? command): \(Self.plain(message))")
            failed = true
            return false
        }
    }

    /// `ACK [50@0] {pin} No such song or directory` → `No such song or directory`.
    static func plain(_ ack: String) -> String {
        guard let brace = ack.range(of: "} ") else { return ack }
        return String(ack[brace.upperBound...])
    }

    private func pins(_ link: DaemonLink) -> [[String: String]] {
        guard case .ok(let fields) = link.request("listpins") else { return [] }
        return Accounts.blocks(fields, startingWith: "pin")
    }

    private func show(_ link: DaemonLink, only: [String], bars: Bool = true) {
        let pins = pins(link).filter { only.isEmpty || only.contains($0["pin"] ?? "") }
        if pins.isEmpty { Console.say(only.isEmpty ? "Nothing is kept offline." : "None of these is kept offline.") }
        for pin in pins {
            Console.say(Self.summary(pin))
            guard bars, pin["state"] == "downloading", let name = pin["pin"],
                case .ok(let fields) = link.request("pinstatus " + DaemonLink.quoted(name))
            else { continue }
            for song in Accounts.blocks(fields, startingWith: "file") where song["state"] == "downloading" {
                Console.say("    " + Self.bar(song) + "  " + (song["file"] ?? ""))
            }
        }
    }

    /// `yadisk/Jazz (folder): downloading 3/10 songs, 45.0 MiB of 120 MiB, 2.1 MiB/s, 0:36 left`
    static func summary(_ pin: [String: String]) -> String {
        let state = pin["state"] ?? "?"
        var text = "\(pin["pin"] ?? "?") (\(pin["type"] ?? "?")\(pin["configured"] == "1" ? ", from the config" : "")): \(state)"
        text += " \(pin["completed"] ?? "0")/\(pin["songs"] ?? "0") songs, \(Accounts.bytes(pin["done"])) of \(Accounts.bytes(pin["bytes"]))"
        if let speed = pin["speed"] { text += ", \(Accounts.bytes(speed))/s" }
        if let eta = pin["eta"].flatMap(Int.init) { text += String(format: ", %d:%02d left", eta / 60, eta % 60) }
        if let message = pin["message"] { text += " — \(message)" }
        return text
    }

    /// `[##########----------]  50%  1.2 MiB/s`
    static func bar(_ song: [String: String]) -> String {
        let total = Double(song["bytes"] ?? "0") ?? 0
        let done = Double(song["done"] ?? "0") ?? 0
        let fraction = total > 0 ? min(1, done / total) : 0
        let filled = Int(fraction * 20)
        return "[" + String(repeating: "#", count: filled) + String(repeating: "-", count: 20 - filled) + "]"
            + String(format: " %3d%%", Int(fraction * 100)) + (song["speed"].map { "  \(Accounts.bytes($0))/s" } ?? "")
    }

    /// Redraws the named pins (all, without names) until none is queued or downloading.
    private func waitForCompletion(_ link: DaemonLink, uris: [String]) -> Int32 {
        Console.catchInterrupt()
        let terminal = isatty(STDOUT_FILENO) == 1
        var drawn = 0
        var lastPrinted: [String] = []
        while true {
            let pins = pins(link).filter { uris.isEmpty || uris.contains($0["pin"] ?? "") }
            let lines = pins.map(Self.summary)
            if terminal {
                if drawn > 0 { print("\u{1b}[\(drawn)A", terminator: "") }
                for line in lines { print("\u{1b}[2K" + line) }
                drawn = lines.count
            } else if lines.map({ Self.stateOnly($0) }) != lastPrinted.map({ Self.stateOnly($0) }) {
                for line in lines { print(line) }
                lastPrinted = lines
            }
            fflush(nil)
            let running = pins.filter { ["queued", "downloading"].contains($0["state"] ?? "") }
            if running.isEmpty {
                let stuck = pins.filter { $0["state"] != "completed" }
                for pin in stuck {
                    Console.warn("\(pin["pin"] ?? "?") is not complete: \(pin["message"] ?? pin["state"] ?? "?")")
                }
                return stuck.isEmpty && !failed ? 0 : 1
            }
            if !Console.wait(0.5, dots: false) {
                Console.warn("stopped waiting; the downloads go on in nimbusd")
                return 130
            }
        }
    }

    /// A summary without its changing numbers: a log gets a line when a state changes.
    private static func stateOnly(_ line: String) -> String { String(line.prefix { $0 != "," }) }
}
