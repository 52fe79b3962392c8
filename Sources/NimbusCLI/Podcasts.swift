import Foundation
import NimbusSupport
import NimbusXML

/// `nimbus podcasts add URL…|remove NAME…|list|refresh [NAME]|import FILE.opml|export`: the
/// daemon's subscriptions, and OPML in and out, as every podcast app has them.
struct Podcasts {
    let options: Options

    func run() -> Int32 {
        let words = Array(options.words.dropFirst())
        guard let action = words.first else { Console.fail("podcasts: say add, remove, list, refresh, import or export") }
        let arguments = Array(words.dropFirst())
        let link = DaemonLink.required(options)
        var failed = false
        switch action {
        case "add":
            guard !arguments.isEmpty else { Console.fail("podcasts add: give the feeds' addresses") }
            for url in arguments { failed = !subscribe(url, link) || failed }
        case "import":
            guard arguments.count == 1 else { Console.fail("podcasts import: give one OPML file") }
            let feeds: [String]
            do {
                feeds = try Self.feeds(inOPML: Array(try Data(contentsOf: URL(fileURLWithPath: arguments[0]))))
            } catch {
                Console.fail("\(arguments[0]): \(error)")
            }
            if feeds.isEmpty { Console.warn("\(arguments[0]) lists no feeds") }
            for url in feeds { failed = !subscribe(url, link) || failed }
        case "remove":
            guard !arguments.isEmpty else { Console.fail("podcasts remove: name the shows") }
            for name in arguments {
                if case .ack(let message) = link.request("podcastunsubscribe " + DaemonLink.quoted(name)) {
                    Console.warn("\(name): \(DaemonLink.reason(message))")
                    failed = true
                } else {
                    Console.say("\(name): unsubscribed")
                }
            }
        case "refresh":
            _ = link.fields("podcastrefresh" + (arguments.first.map { " " + DaemonLink.quoted($0) } ?? ""), failing: "cannot refresh")
            list(link)
        case "list":
            list(link)
        case "export":
            print(Self.opml(shows(link)), terminator: "")
        default:
            Console.fail("podcasts: unknown action \"\(action)\"")
        }
        return failed ? 1 : 0
    }

    private func subscribe(_ url: String, _ link: DaemonLink) -> Bool {
        switch link.request("podcastsubscribe " + DaemonLink.quoted(url)) {
        case .ack(let message):
            Console.warn("\(url): \(DaemonLink.reason(message))")
            return false
        case .ok(let fields):
            Console.say("subscribed: \(fields.first { $0.key == "podcast" }?.value ?? url)")
            return true
        }
    }

    private func shows(_ link: DaemonLink) -> [[String: String]] {
        var shows: [[String: String]] = []
        for (key, value) in link.fields("listpodcasts", failing: "cannot list the podcasts") {
            if key == "podcast" { shows.append([:]) }
            if !shows.isEmpty { shows[shows.count - 1][key] = value }
        }
        return shows
    }

    private func list(_ link: DaemonLink) {
        let shows = shows(link)
        if shows.isEmpty { Console.say("No podcasts yet: nimbus podcasts add URL") }
        for show in shows {
            var line = "\(show["podcast"] ?? "?"): \(show["episodes"] ?? "0") episodes, \(show["new"] ?? "0") new"
            if let error = show["error"] { line += " — last refresh failed: \(error)" }
            Console.say(line)
        }
    }

    /// The feed addresses of an OPML file (`outline` elements with `xmlUrl`, at any depth).
    static func feeds(inOPML bytes: [UInt8]) throws -> [String] {
        func collect(_ element: XMLElement, into urls: inout [String]) {
            if element.name == "outline", let url = element.attributes["xmlUrl"], !url.isEmpty { urls.append(url) }
            for child in element.children { collect(child, into: &urls) }
        }
        let root = try XMLDocument.parse(bytes)
        guard root.name == "opml" else { throw NotOPML("not an OPML file (<\(root.name)>)") }
        var urls: [String] = []
        collect(root, into: &urls)
        return urls
    }

    typealias NotOPML = DomainError<Podcasts>

    static func opml(_ shows: [[String: String]]) -> String {
        func escaped(_ text: String) -> String {
            text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
                .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
        }
        var text = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<opml version=\"2.0\">\n<head><title>Nimbus podcasts</title></head>\n<body>\n"
        for show in shows {
            let name = escaped(show["podcast"] ?? ""), url = escaped(show["url"] ?? "")
            text += "<outline type=\"rss\" text=\"\(name)\" title=\"\(name)\" xmlUrl=\"\(url)\"/>\n"
        }
        return text + "</body>\n</opml>\n"
    }
}
