import Foundation
import NimbusHarness

/// The web page: what a first visit transfers (the app shell, gzip as the browser asks for
/// it) and how long after navigation headless Chromium shows the playing song, on loopback.
/// Nothing to compare with in MPD (it has no page): each figure is printed against its goal.
struct WebBenchmarks {
    let quick: Bool

    func run() throws -> [String] {
        guard FileManager.default.fileExists(atPath: "/usr/bin/chromedriver") else { return ["web page: chromium-driver missing; skipped"] }
        let port = freePort()
        let daemon = try ServerProcess(.nimbus, config: "web {\n    port \"\(port)\"\n}", musicDirectory: try Fixtures.library())
        try daemon.waitForDatabase(songs: 12)
        let client = try daemon.connect()
        _ = try client.request("add \"Alpha Band/First Light/03 - Dusk.wav\"")
        var shell = 0
        for file in ["/", "/app.js", "/mpd.js", "/ui.js", "/strings.js", "/now.js", "/queue.js", "/library.js", "/accounts.js", "/offline.js", "/playlists.js", "/settings.js", "/style.css", "/icon.svg"] {
            let size = try runTool(
                "curl", ["-s", "-o", "/dev/null", "-H", "Accept-Encoding: gzip", "-w", "%{size_download}", "http://127.0.0.1:\(port)\(file)"])
            shell += Int(size) ?? 0
        }
        var shown: [Double] = []
        let script = Fixtures.repositoryRoot + "/Tests/DaemonTests/Scripts/web_page_browser.py"
        let scratch = TemporaryDirectory("nimbus-bench-web")
        for round in 0..<(quick ? 1 : 3) {
            let output = try runTool("/usr/bin/python3", [script, "http://127.0.0.1:\(port)/", "\(daemon.port)", scratch.file("run\(round)")])
            let result = try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [String: Any]
            if let ms = result?["firstShownMs"] as? Double { shown.append(ms) }
            _ = try client.request("stop")
        }
        let median = shown.sorted()[shown.count / 2]
        return [
            String(format: "web page: app shell %.1f KB on a first visit (goal ≤ 100 KB)", Double(shell) / 1000),
            String(format: "web page: first song shown %.0f ms after navigation, median of %d (goal ≤ 300 ms)", median, shown.count),
        ]
    }
}
