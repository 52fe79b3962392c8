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
        for file in ["/", "/app.js", "/mpd.js", "/ui.js", "/strings.js", "/now.js", "/queue.js", "/library.js", "/accounts.js", "/offline.js", "/playlists.js", "/settings.js", "/podcasts.js", "/phones.js", "/style.css", "/icon.svg"] {
            let size = try runTool(
                "curl", ["-s", "-o", "/dev/null", "-H", "Accept-Encoding: gzip", "-w", "%{size_download}", "http://127.0.0.1:\(port)\(file)"])
            shell += Int(size) ?? 0
        }
        var shown: [Double] = []
        let scratch = TemporaryDirectory("nimbus-bench-web")
        for round in 0..<(quick ? 1 : 3) {
            if let ms = try browser(port: port, mpdPort: daemon.port, scratch.file("run\(round)"))["firstShownMs"] as? Double { shown.append(ms) }
        }
        let median = shown.sorted()[shown.count / 2]
        return [
            String(format: "web page: app shell %.1f KB on a first visit (goal ≤ 100 KB)", Double(shell) / 1000),
            String(format: "web page: first song shown %.0f ms after navigation, median of %d (goal ≤ 300 ms)", median, shown.count),
        ] + (try albumGrid())
    }

    /// The bench scenario of the page's browser script: timings only.
    private func browser(port: Int, mpdPort: Int, _ artifacts: String) throws -> [String: Any] {
        let script = Fixtures.repositoryRoot + "/Tests/DaemonTests/Scripts/web_page_browser.py"
        // The page runs on a phone or laptop, not on the box: `make bench` pins the daemon to
        // the first core, the browser may use them all. Times are the page's own (its marks
        // and resource timing), not when a poll noticed.
        let command = [script, "http://127.0.0.1:\(port)/", "\(mpdPort)", artifacts, "bench"]
        let cores = ProcessInfo.processInfo.processorCount
        let output = cores > 1
            ? try runTool("/usr/bin/taskset", ["-c", "0-\(cores - 1)", "/usr/bin/python3"] + command) : try runTool("/usr/bin/python3", command)
        return (try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [String: Any]) ?? [:]
    }

    /// The album grid of the 5,000-song corpus, each album folder with a 1000-pixel cover.jpg
    /// (one picture, hard-linked): the first screen at 1280x800 with every cover in view
    /// loaded — first with nothing scaled yet, then again (browser cache, scaled covers kept).
    private func albumGrid() throws -> [String] {
        let tracks = quick ? 1000 : 5000
        let corpus = TemporaryDirectory("nimbus-bench-grid")
        let music = corpus.path + "/music"
        try runTool("/usr/bin/python3", [Fixtures.repositoryRoot + "/scripts/make-corpus", music, String(tracks)])
        let cover = corpus.file("cover.jpg")
        try runTool("ffmpeg", ["-loglevel", "error", "-y", "-f", "lavfi", "-i", "testsrc=size=1000x1000", "-frames:v", "1", "-q:v", "3", cover])
        try runTool("/bin/sh", ["-c", "find \"$0\" -mindepth 2 -maxdepth 2 -type d -exec ln \"$1\" {}/cover.jpg \\;", music, cover])
        let port = freePort()
        let daemon = try ServerProcess(.nimbus, config: "web {\n    port \"\(port)\"\n}", musicDirectory: music)
        try daemon.waitForDatabase(songs: tracks, timeout: 300)
        let result = try browser(port: port, mpdPort: daemon.port, corpus.file("browser"))
        guard let first = result["gridFirst"] as? [Double], let again = result["gridAgain"] as? [Double] else {
            return ["web page: album grid never showed its covers: \(result)"]
        }
        return [
            String(format: "web page: album grid of %d songs (%.0f albums), first screen (%.0f covers) shown %.0f ms after navigation with nothing scaled yet, %.0f ms on a second visit",
                tracks, first[1], first[2], first[0], again[0]),
        ]
    }
}
