import Foundation
import NimbusHarness

/// A protocol conversation replayed verbatim against a server, recording what came back, so
/// the same script can be compared between Debian's MPD and nimbusd.
struct ProtocolScript {
    enum Step {
        /// Opens connection `id` and records its greeting.
        case connect(Int)
        /// Sends raw text on a connection.
        case send(Int, String)
        /// Reads `count` complete responses (each ends with OK or ACK).
        case responses(Int, count: Int)
        /// Reads until the server closes.
        case closed(Int)
        /// Records whether anything arrives within a short grace period.
        case quiet(Int)
    }

    let name: String
    let steps: [Step]

    /// Convenience for the common single-connection exchange: send lines, read one response each.
    static func exchange(_ name: String, _ lines: [String]) -> ProtocolScript {
        ProtocolScript(name: name, steps: [.connect(0)] + lines.flatMap { [Step.send(0, $0 + "\n"), .responses(0, count: 1)] })
    }

    func run(against endpoint: LineClient.Endpoint) throws -> [String] {
        var clients: [Int: LineClient] = [:]
        var transcript: [String] = []
        for step in steps {
            switch step {
            case .connect(let id):
                let client = try LineClient(endpoint, timeout: 3)
                clients[id] = client
                transcript.append("[\(id)] " + (try client.readLine()))
            case .send(let id, let text):
                transcript.append("[\(id)] >> " + text.debugDescription)
                do { try clients[id]!.send(text) } catch { transcript.append("[\(id)] <send failed>") }
            case .responses(let id, let count):
                for _ in 0..<count {
                    do {
                        transcript += try clients[id]!.readResponse().map { "[\(id)] " + $0 }
                    } catch {
                        transcript.append("[\(id)] <closed>")
                        break
                    }
                }
            case .closed(let id):
                let rest = (try? clients[id]!.readUntilClosed()) ?? "<error>"
                transcript += rest.split(separator: "\n", omittingEmptySubsequences: false).dropLast().map { "[\(id)] " + $0 }
                transcript.append("[\(id)] <closed>")
            case .quiet(let id):
                transcript.append("[\(id)] " + ((try? clients[id]!.isQuiet(for: 0.15)) == true ? "<quiet>" : "<data>"))
            }
        }
        return transcript.compactMap(Self.mask)
    }

    /// Values that legitimately differ between two daemons started at different moments.
    /// `db_update` is dropped until Nimbus has a database (MPD reports its empty one).
    static func mask(_ line: String) -> String? {
        if line.contains("] db_update: ") { return nil }
        if line.contains("] uptime: ") { return line.components(separatedBy: "uptime: ")[0] + "uptime: *" }
        return line
    }
}
