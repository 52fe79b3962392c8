import Foundation
import NimbusHarness
import NimbusSupport

/// Issue 27's figures, on private servers on loopback:
/// - against Debian's MPD with its smbclient storage: the time from `mount` to every song of
///   the fixture share indexed, and the first audio of a song over the share;
/// - against curl: the read throughput of a pinned folder over SMB and over SFTP (curl reads
///   the same files one after another; its smb:// speaks SMB1, so this Samba lets NT1 in).
struct ShareBenchmarks {
    let quick: Bool

    func run(into report: inout BenchReport) throws -> [String] {
        guard SambaServer.available else { return ["share: smbd is not installed or this is not root; skipped"] }
        let share = TemporaryDirectory("nimbus-bench-smb")
        let count = quick ? 20 : 100
        let album = share.file("Album")
        try FileManager.default.createDirectory(atPath: album, withIntermediateDirectories: true)
        let wav = share.file("source.wav")
        try runTool("sox", ["-n", "-r", "44100", "-c", "2", "-b", "16", wav, "synth", "30", "pinknoise", "vol", "0.4"])
        for index in 1...count {
            try runTool("flac", ["-s", "-f", "-T", "TITLE=Track \(index)", "-T", "ALBUM=Bench", "-T", "ARTIST=Share", "-o", album + String(format: "/%03d.flac", index), wav])
        }
        let pinned = share.file("Pinned")
        try FileManager.default.createDirectory(atPath: pinned, withIntermediateDirectories: true)
        for index in 1...(quick ? 5 : 20) { try FileManager.default.copyItem(atPath: wav, toPath: pinned + String(format: "/%02d.wav", index)) }
        try FileManager.default.removeItem(atPath: wav)
        let pinnedBytes = try FileManager.default.contentsOfDirectory(atPath: pinned).reduce(0.0) {
            $0 + Double((try FileManager.default.attributesOfItem(atPath: pinned + "/" + $1)[.size] as? Int) ?? 0)
        }
        let smb = try SambaServer(root: share.path, minimumProtocol: "NT1")
        let songs = count + (quick ? 5 : 20)
        report.section("share: Samba on loopback, \(songs) songs (Nimbus SMB3 through libsmbclient; MPD 0.23 smbclient storage)")

        let mpdProbe = try FirstAudioProbe(path: share.file("mpd.fifo"))
        let mpdCache = TemporaryDirectory("nimbus-bench-mpd-smb")
        let mpd = try ServerProcess(
            .mpd,
            config: "database {\n plugin \"simple\"\n path \"\(mpdCache.file("db"))\"\n cache_directory \"\(mpdCache.path)\"\n}\n"
                + "input {\n plugin \"curl\"\n enabled \"no\"\n}\n" + mpdProbe.outputBlock,
            cpu: 1, nullOutput: false)
        let nimbusProbe = try FirstAudioProbe(path: share.file("nimbus.fifo"))
        let nimbus = try ServerProcess(.nimbus, config: nimbusProbe.outputBlock, cpu: 1, nullOutput: false)
        let mpdIndex = try index(mpd, smb.url(password: smb.password), songs: songs)
        let nimbusIndex = try index(nimbus, smb.url(password: smb.password), songs: songs)
        report.add(Figure(name: "mount to \(songs) songs indexed", unit: "s", nimbus: nimbusIndex, mpd: mpdIndex, better: .lower))
        var ours: [Double] = [], theirs: [Double] = []
        for index in 1...3 {
            let song = String(format: "nas/Album/%03d.flac", index + 10)
            ours.append(try nimbusProbe.time(nimbus, song).audio * 1000)
            theirs.append(try mpdProbe.time(mpd, song).audio * 1000)
        }
        report.add(Figure(name: "first audio of a song over SMB", unit: "ms", nimbus: ours.sorted()[1], mpd: theirs.sorted()[1], better: .lower))
        let names = try FileManager.default.contentsOfDirectory(atPath: pinned).sorted()

        // Pinned-folder throughput against curl, over SMB and over SFTP.
        let smbCurl = try seconds {
            try runTool("/usr/bin/curl", ["-s", "-f", "-u", "\(smb.user):\(smb.password)"]
                + names.flatMap { ["-o", "/dev/null", "smb://127.0.0.1:\(smb.port)/music/Pinned/\($0)"] })
        }
        let smbPin = try pinSeconds(nimbus, "nas/Pinned")
        report.section(String(format: "share: pinning %.0f MB (%d files); reference column: curl", pinnedBytes / 1e6, names.count))
        report.add(Figure(name: "pin download vs curl, SMB", unit: "MB/s", nimbus: pinnedBytes / smbPin / 1e6, mpd: pinnedBytes / smbCurl / 1e6, better: .higher))
        _ = mpd.stop()
        guard SSHServer.available else { return ["share: sshd is not installed; no SFTP figure"] }
        let ssh = try SSHServer()
        let sftp = try ServerProcess(.nimbus, cpu: 1)
        let address = ssh.url(share.path, password: ssh.password) + "?fingerprint=" + ssh.fingerprint
        _ = try sftp.connect(timeout: 600).request("mount box \(address)")
        try sftp.waitForDatabase(songs: songs, timeout: 600)
        let sftpCurl = try seconds {
            try runTool("/usr/bin/curl", ["-s", "-f", "--insecure", "-u", "\(SSHServer.user):\(ssh.password)"]
                + names.flatMap { ["-o", "/dev/null", "sftp://127.0.0.1:\(ssh.port)\(pinned)/\($0)"] })
        }
        let sftpPin = try pinSeconds(sftp, "box/Pinned")
        report.add(Figure(name: "pin download vs curl, SFTP", unit: "MB/s", nimbus: pinnedBytes / sftpPin / 1e6, mpd: pinnedBytes / sftpCurl / 1e6, better: .higher))
        return []
    }

    /// From `mount` until the database holds `songs`, in seconds.
    private func index(_ daemon: ServerProcess, _ url: String, songs: Int) throws -> Double {
        let client = try daemon.connect(timeout: 600)
        return try seconds {
            let answer = try client.request("mount nas \(url)")
            guard answer == ["OK"] else { throw BenchFailure("mount answered \(answer)") }
            guard waitUntil(timeout: 1800, { (try? client.request("stats"))?.contains("songs: \(songs)") == true }) else {
                throw BenchFailure("the share was never indexed: \((try? client.request("stats")) ?? [])")
            }
        }
    }

    private func pinSeconds(_ daemon: ServerProcess, _ folder: String) throws -> Double {
        let client = try daemon.connect()
        return try seconds {
            _ = try client.request("pin \(folder)")
            guard waitUntil(timeout: 1800, { (try? client.request("listpins"))?.contains("state: completed") == true }) else {
                throw BenchFailure("the pin of \(folder) never completed")
            }
        }
    }
}
