import Foundation
import Glibc
import NimbusHarness

/// Issue 33's figures for the Subsonic API: a Symfonium-style full sync of the generated
/// library (`search3` with `query=""`, 500 a page: artists, albums, songs; then `getAlbum` for
/// every album) against MPD's `listallinfo` of the same library in the same run, the slowest
/// page, VmRSS after the sync against before; `download` of a local 100 MB file against nginx
/// serving it; the time to the first byte of `stream` for a cached cloud song.
struct SubsonicBenchmarks {
    let songs: Int
    let quick: Bool
    static let user = "subsonic_user {\n    name \"bench\"\n    password \"bench\"\n}\n"

    func run(into report: inout BenchReport) throws -> [String] {
        let cpu = sysconf(Int32(_SC_NPROCESSORS_ONLN)) > 1 ? 1 : 0
        report.section("Subsonic API, \(songs) songs")
        let corpus = TemporaryDirectory("nimbus-corpus-subsonic")
        try runTool("/usr/bin/python3", [Fixtures.repositoryRoot + "/scripts/make-corpus", corpus.path, String(songs), "1"])
        let web = freePort()
        let nimbus = try ServerProcess(
            .nimbus, config: "web {\n    port \"\(web)\"\n}\n" + Self.user + "max_output_buffer_size \"262144\"", cpu: cpu,
            musicDirectory: corpus.path)
        let mpd = try ServerProcess(.mpd, config: "max_output_buffer_size \"262144\"", cpu: cpu, musicDirectory: corpus.path)
        for daemon in [nimbus, mpd] { try daemon.waitForDatabase(songs: songs, timeout: 1800) }
        let http = APIClient(port: web)
        _ = try http.get("ping")
        let before = ProcessStats.memory(nimbus.process.processIdentifier).rss
        var sync: [Double] = [], slowest = 0.0, synced = 0, cold = 0.0
        var listing: [Double] = []
        // The first sync starts right after the start-up update (while the daemon re-reads the
        // database it wrote and builds the API's index): reported apart, as "cold".
        for round in 0..<(quick ? 2 : 4) {
            let (time, page, count) = try fullSync(http)
            synced = count
            if round == 0 {
                cold = page
                continue
            }
            sync.append(time)
            slowest = max(slowest, page)
            let client = try mpd.connect(timeout: 120)
            listing.append(try seconds { _ = try client.request("listallinfo") } * 1000)
        }
        let after = ProcessStats.memory(nimbus.process.processIdentifier).rss
        report.add(Figure(name: "full sync vs MPD listallinfo", unit: "ms", nimbus: median(sync), mpd: median(listing), better: .lower, goal: 2))
        var notes = [
            String(format: "subsonic, %d songs: full sync saw %d songs; slowest request %.1f ms (goal ≤ 50 ms; %.0f ms in the first sync, right after the start-up update); VmRSS %.1f → %.1f MiB after the syncs (%+.1f%%, goal ≤ +10%%)",
                songs, synced, slowest, cold, before / 1024, after / 1024, (after - before) / before * 100)
        ]
        nimbus.stop()
        mpd.stop()
        withExtendedLifetime(corpus) {}
        guard songs == 5000 || quick else { return notes }
        notes += try download(into: &report, cpu: cpu)
        notes += try firstByte(cpu: cpu)
        return notes
    }

    /// Milliseconds of the whole sync, of its slowest request, and the songs it saw.
    private func fullSync(_ http: APIClient) throws -> (Double, Double, Int) {
        var slowest = 0.0, songs = 0
        var albums: [String] = []
        let total = try seconds {
            for (kind, count) in [("artist", "artistCount"), ("album", "albumCount"), ("song", "songCount")] {
                var offset = 0
                while true {
                    var query = ["query": "\"\"", "artistCount": "0", "albumCount": "0", "songCount": "0"]
                    query[count] = "500"
                    query[kind + "Offset"] = String(offset)
                    var body: [UInt8] = []
                    slowest = max(slowest, try seconds { body = try http.raw("search3", query) } * 1000)
                    // The ids in the answer, found as a client's streaming parser would, without
                    // building a tree (Foundation's JSON parser would cost more than the server).
                    let items = APIClient.ids(in: body, prefix: kind == "artist" ? "r" : kind == "album" ? "a" : "s")
                    if kind == "album" { albums += items }
                    if kind == "song" { songs += items.count }
                    if items.count < 500 { break }
                    offset += 500
                }
            }
            for album in albums {
                slowest = max(slowest, try seconds { _ = try http.raw("getAlbum", ["id": album]) } * 1000)
            }
        }
        return (total * 1000, slowest, songs)
    }

    /// A local 100 MB file: `download` against nginx serving the same file, MB/s.
    private func download(into report: inout BenchReport, cpu: Int) throws -> [String] {
        guard WebDAVServer.available else { return ["subsonic download: nginx missing; skipped"] }
        let music = TemporaryDirectory("nimbus-bench-download")
        try runTool("sox", ["-D", "-n", "-r", "44100", "-c", "2", "-b", "16", music.file("big.wav"), "synth", quick ? "60" : "590", "whitenoise", "vol", "0.3"])
        let web = freePort()
        let nimbus = try ServerProcess(.nimbus, config: "web {\n    port \"\(web)\"\n}\n" + Self.user, cpu: cpu, musicDirectory: music.path)
        try nimbus.waitForDatabase(songs: 1)
        let nginx = try WebDAVServer(root: music.path, authenticated: false)
        let id = try APIClient(port: web).songID("big.wav")
        func speed(_ url: String) throws -> Double {
            (Double(try runTool("curl", ["-s", "-o", "/dev/null", "-w", "%{speed_download}", url])) ?? 0) / 1e6
        }
        var ours: [Double] = [], theirs: [Double] = []
        for _ in 0..<(quick ? 1 : 3) {
            ours.append(try speed("http://127.0.0.1:\(web)/rest/download?u=bench&p=bench&id=\(id)"))
            theirs.append(try speed(nginx.url + "big.wav"))
        }
        report.add(Figure(name: "download 100 MB local file (nginx as MPD)", unit: "MB/s", nimbus: median(ours), mpd: median(theirs), better: .higher, goal: 0.9))
        nimbus.stop()
        return []
    }

    /// A cloud song read once (so it is whole in the range cache): time to the first byte of `stream`.
    private func firstByte(cpu: Int) throws -> [String] {
        guard WebDAVServer.available else { return [] }
        let share = TemporaryDirectory("nimbus-bench-ttfb")
        try FileManager.default.createDirectory(atPath: share.file("Band/Album"), withIntermediateDirectories: true)
        try runTool("sox", ["-D", "-n", "-r", "44100", "-c", "2", "-b", "16", share.file("Band/Album/01.flac"), "synth", "30", "pinknoise", "vol", "0.3"])
        let server = try WebDAVServer(root: share.path)
        let secrets = TemporaryDirectory("nimbus-bench-secrets")
        let web = freePort()
        let config = """
            web {
                port "\(web)"
            }
            \(Self.user)
            \(server.cloudBlock(secrets: secrets))
            """
        let nimbus = try ServerProcess(.nimbus, config: config, cpu: cpu)
        try nimbus.waitForDatabase(songs: 1)
        let id = try APIClient(port: web).songID("dav/Band/Album/01.flac")
        let url = "http://127.0.0.1:\(web)/rest/stream?u=bench&p=bench&id=\(id)"
        _ = try runTool("curl", ["-s", "-o", "/dev/null", url])
        var times: [Double] = []
        for _ in 0..<(quick ? 3 : 15) {
            times.append((Double(try runTool("curl", ["-s", "-o", "/dev/null", "-w", "%{time_starttransfer}", url])) ?? 0) * 1000)
        }
        nimbus.stop()
        withExtendedLifetime((server, share, secrets)) {}
        return [String(format: "subsonic stream of a cached cloud song: first byte after %.1f ms, median of %d (goal ≤ 10 ms)", median(times), times.count)]
    }

    private func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }
}

/// JSON requests to `/rest/` on one keep-alive HTTP/1.1 connection, as an app's HTTP stack
/// makes them (a plain socket: URLSession on Linux costs more per request than the server).
final class APIClient {
    let port: Int
    private var socket: Int32 = -1
    private var pending: [UInt8] = []

    init(port: Int) { self.port = port }

    deinit { if socket >= 0 { close(socket) } }

    private func connect() throws {
        guard let fd = connectLoopback(port: port) else { throw APIFailure(description: "cannot connect to port \(port)") }
        socket = fd
        var one: Int32 = 1
        setsockopt(socket, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
    }

    /// The body of one GET.
    func body(_ target: String) throws -> [UInt8] {
        if socket < 0 { try connect() }
        let request = Array("GET \(target) HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".utf8)
        guard request.withUnsafeBytes({ send(socket, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }) == request.count else {
            throw APIFailure(description: "send failed")
        }
        var headerEnd: Int?
        var searched = 0
        while headerEnd == nil {
            if pending.count < 4 || searched > pending.count - 4 { try fill() }
            while searched <= pending.count - 4 {
                if pending[searched] == 13 && pending[searched + 1] == 10 && pending[searched + 2] == 13 && pending[searched + 3] == 10 {
                    headerEnd = searched
                    break
                }
                searched += 1
            }
        }
        let head = String(decoding: pending[..<headerEnd!], as: UTF8.self).lowercased()
        guard let line = head.split(separator: "\r\n").first(where: { $0.hasPrefix("content-length:") }),
            let length = Int(line.dropFirst(15).trimmingCharacters(in: .whitespaces))
        else { throw APIFailure(description: "no content-length: \(head)") }
        let start = headerEnd! + 4
        while pending.count < start + length { try fill() }
        let body = Array(pending[start..<start + length])
        if pending.count == start + length { pending.removeAll(keepingCapacity: true) } else { pending.removeFirst(start + length) }
        return body
    }

    /// One receive buffer for the connection's life, as an app's HTTP stack keeps one: a
    /// fresh 256 KiB per read cost the client more than the server's answer.
    private var scratch = [UInt8](repeating: 0, count: 256 * 1024)

    private func fill() throws {
        let count = scratch.withUnsafeMutableBytes { recv(socket, $0.baseAddress, $0.count, 0) }
        guard count > 0 else { throw APIFailure(description: "connection closed") }
        pending += scratch[..<count]
    }

    /// The body of an answer that must be `ok`.
    func raw(_ endpoint: String, _ arguments: [String: String] = [:]) throws -> [UInt8] {
        // The query written by hand (URLComponents cost tens of µs a request).
        var target = "/rest/" + endpoint + "?u=bench&p=bench&f=json&c=bench&v=1.16.1"
        for (name, value) in arguments {
            target += "&" + name + "=" + (value.addingPercentEncoding(withAllowedCharacters: Self.queryValue) ?? value)
        }
        let body = try body(target)
        guard body.count > 40, String(decoding: body.prefix(48), as: UTF8.self).contains("\"status\":\"ok\"") else {
            throw APIFailure(description: "\(endpoint): \(String(decoding: body.prefix(300), as: UTF8.self))")
        }
        return body
    }

    static let queryValue = CharacterSet.alphanumerics.union(CharacterSet(charactersIn: "-._~"))

    /// Every `"id":"P…"` value in a JSON answer whose id starts with `prefix`.
    static func ids(in body: [UInt8], prefix: Character) -> [String] {
        let needle = Array("\"id\":\"\(prefix)".utf8)
        var found: [String] = []
        var index = 0
        while index + needle.count < body.count {
            if body[index] == needle[0], body[index..<index + needle.count].elementsEqual(needle) {
                let start = index + needle.count - 1
                var end = start
                while end < body.count, body[end] != UInt8(ascii: "\"") { end += 1 }
                found.append(String(decoding: body[start..<end], as: UTF8.self))
                index = end
            } else {
                index += 1
            }
        }
        return found
    }

    func get(_ endpoint: String, _ arguments: [String: String] = [:]) throws -> [String: Any] {
        let body = try raw(endpoint, arguments)
        let root = (try? JSONSerialization.jsonObject(with: Data(body))) as? [String: Any]
        guard let response = root?["subsonic-response"] as? [String: Any], response["status"] as? String == "ok" else {
            throw APIFailure(description: "\(endpoint): \(String(decoding: body.prefix(300), as: UTF8.self))")
        }
        return response
    }

    /// The id of the song at `path`, found by a search.
    func songID(_ path: String) throws -> String {
        let answer = try get("search3", ["query": "", "songCount": "500", "artistCount": "0", "albumCount": "0"])
        let songs = ((answer["searchResult3"] as? [String: Any])?["song"] as? [[String: Any]]) ?? []
        guard let id = songs.first(where: { $0["path"] as? String == path })?["id"] as? String else {
            throw APIFailure(description: "no song \(path) in \(songs.count) songs")
        }
        return id
    }
}

struct APIFailure: Error, CustomStringConvertible {
    let description: String
}
