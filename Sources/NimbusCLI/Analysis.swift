import Foundation
import Glibc

/// `nimbus analysis [status|now [URI]|wait]`: the daemon's loudness analysis pass. `status`
/// (the default) prints one line; `now URI` measures a song, folder or cloud folder before
/// anything else; `wait` draws a progress bar until the pass has nothing left (Ctrl-C stops
/// waiting, not the pass). `nimbus loudness URI` prints one song's measurement.
final class Analysis {
    let options: Options

    init(options: Options) { self.options = options }

    func run() -> Int32 {
        let words = Array(options.words.dropFirst())
        let link = DaemonLink.required(options)
        switch words.first ?? "status" {
        case "status":
            Console.say(Self.line(status(link)))
            return 0
        case "now":
            let uri = words.dropFirst().first
            let answer = link.fields("analyze" + (uri.map { " " + DaemonLink.quoted($0) } ?? ""), failing: "cannot analyze")
            Console.say("\(answer.first { $0.key == "songs" }?.value ?? "0") songs queued for measuring")
            return options.wait ? wait(link) : 0
        case "wait":
            return wait(link)
        default:
            Console.fail("analysis: say status, now [URI] or wait\n\(CLI.usage)")
        }
    }

    /// `loudness URI`, as the daemon answers it.
    static func loudness(_ options: Options) -> Int32 {
        guard options.words.count == 2 else { Console.fail("name the song to show the loudness of\n\(CLI.usage)") }
        let link = DaemonLink.required(options)
        for field in link.fields("loudness " + DaemonLink.quoted(options.words[1]), failing: "no measurement") {
            Console.say("\(field.key): \(field.value)")
        }
        return 0
    }

    private func status(_ link: DaemonLink) -> [String: String] {
        Dictionary(link.fields("analysisstatus", failing: "cannot read the analysis status").map { ($0.key, $0.value) }) { $1 }
    }

    static func line(_ status: [String: String]) -> String {
        let songs = Double(status["songs"] ?? "0") ?? 0, measured = Double(status["measured"] ?? "0") ?? 0
        let fraction = songs > 0 ? min(1, measured / songs) : 1
        let filled = Int(fraction * 20)
        return "[" + String(repeating: "#", count: filled) + String(repeating: "-", count: 20 - filled) + "]"
            + String(format: " %3d%%", Int(fraction * 100))
            + "  \(status["state"] ?? "?"): \(status["measured"] ?? "0") of \(status["songs"] ?? "0") songs measured, "
            + "\(status["pending"] ?? "0") waiting, \(status["failed"] ?? "0") failed, \(status["rate"] ?? "0") songs/s"
    }

    private func wait(_ link: DaemonLink) -> Int32 {
        Console.catchInterrupt()
        let terminal = isatty(STDOUT_FILENO) == 1
        while true {
            let status = status(link)
            let line = Self.line(status)
            print(terminal ? "\r\u{1b}[2K" + line : line, terminator: terminal ? "" : "\n")
            fflush(nil)
            if status["state"] != "running" {
                if terminal { print() }
                return status["failed"] == "0" ? 0 : 1
            }
            if !Console.wait(1, dots: false) {
                if terminal { print() }
                Console.warn("stopped waiting; the analysis goes on in nimbusd")
                return 130
            }
        }
    }
}
