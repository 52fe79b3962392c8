import Foundation
import NimbusHarness
import XCTest

/// The loudness analysis pass as clients see it: the library is measured in the background,
/// `loudness` answers loudgain's figures, the measurements survive a restart, and ReplayGain
/// levels a song without tags to −18 LUFS with them.
final class LoudnessAnalysisTests: XCTestCase {
    private func makeLibrary() throws -> TemporaryDirectory {
        let music = TemporaryDirectory("nimbus-analysis-music")
        try FileManager.default.createDirectory(atPath: music.file("album"), withIntermediateDirectories: true)
        for (name, synth) in [("1.flac", ["sine", "1000", "vol", "-20dB"]), ("2.flac", ["pinknoise", "vol", "-8dB"])] {
            _ = try runTool("sox", ["-n", "-r", "44100", "-c", "2", "-b", "16", music.file("album/" + name), "synth", "6"] + synth)
            _ = try runTool("metaflac", ["--set-tag=ALBUM=Levels", "--set-tag=ALBUMARTIST=Nimbus", music.file("album/" + name)])
        }
        return music
    }

    private func values(_ lines: [String]) -> [String: String] {
        Dictionary(lines.compactMap { line in line.firstRange(of: ": ").map { (String(line[..<$0.lowerBound]), String(line[$0.upperBound...])) } }) { $1 }
    }

    private func waitForMeasured(_ client: LineClient, _ count: Int) -> Bool {
        waitUntil(timeout: 60) {
            let status = values((try? client.request("analysisstatus")) ?? [])
            return status["state"] == "idle" && status["measured"] == String(count)
        }
    }

    func testTheLibraryIsMeasuredAsLoudgainMeasuresIt() throws {
        try XCTSkipUnless(FileManager.default.isExecutableFile(atPath: "/usr/bin/loudgain"), "loudgain is not installed (scripts/install-deps)")
        let music = try makeLibrary()
        let daemon = try ServerProcess(.nimbus, config: "loudness_analysis \"yes\"", musicDirectory: music.path)
        try daemon.waitForDatabase(songs: 2)
        let client = try daemon.connect()
        XCTAssertTrue(waitForMeasured(client, 2), daemon.log)
        let commands = try client.request("commands")
        for name in ["analysisstatus", "analyze", "loudness"] { XCTAssertTrue(commands.contains("command: \(name)"), name) }

        let reference = try runTool("/usr/bin/loudgain", ["-a", "-O", "-q", music.file("album/1.flac"), music.file("album/2.flac")])
            .split(separator: "\n").dropFirst().map { $0.split(separator: "\t").map(String.init) }
        func number(_ text: String) -> Double { Double(text.split(separator: " ").first ?? "") ?? .nan }
        for (index, name) in ["album/1.flac", "album/2.flac"].enumerated() {
            let answer = values(try client.request("loudness \(name)"))
            XCTAssertEqual(Double(answer["track_gain"] ?? "") ?? .nan, number(reference[index][8]), accuracy: 0.1, "\(name) \(answer)")
            XCTAssertEqual(Double(answer["track_peak"] ?? "") ?? .nan, number(reference[index][3]), accuracy: 0.0012, "\(name)")
            XCTAssertEqual(Double(answer["album_gain"] ?? "") ?? .nan, number(reference[2][8]), accuracy: 0.1, "\(name) album")
            XCTAssertEqual(Double(answer["integrated"] ?? "") ?? .nan, number(reference[index][1]), accuracy: 0.1, "\(name)")
        }
        XCTAssertEqual(try client.request("loudness album/none.flac"), ["ACK [50@0] {loudness} No such song"])
        // The companion CLI shows the same.
        let nimbus = ServerProcess.buildDirectory + "/nimbus", place = ["--host", "127.0.0.1", "--port", "\(daemon.port)"]
        let progress = try runTool(nimbus, ["analysis"] + place)
        XCTAssertTrue(progress.contains("[####################] 100%  idle: 2 of 2 songs measured"), progress)
        XCTAssertTrue(try runTool(nimbus, ["loudness", "album/1.flac"] + place).contains("track_gain: "))

        // Kept across a restart: nothing is measured again.
        _ = daemon.stop()
        try daemon.restart()
        let again = try daemon.connect()
        let status = values(try again.request("analysisstatus"))
        XCTAssertEqual(status["measured"], "2")
        XCTAssertEqual(status["pending"], "0", "\(status)")
        XCTAssertNotNil(values(try again.request("loudness album/1.flac"))["track_gain"])

        // `analyze` measures again on request and the opt-in idle event says so.
        let watcher = try daemon.connect()
        try watcher.send("idle analysis\n")
        XCTAssertEqual(values(try again.request("analyze album"))["songs"], "2")
        XCTAssertEqual(try watcher.readResponse(), ["changed: analysis", "OK"])
    }

    /// A song without ReplayGain tags plays at −18 LUFS with `replaygain "track"`: the
    /// pipe output's bytes, measured by loudgain, within 0.5 LU.
    func testMeasuredGainLevelsAnUntaggedSong() throws {
        try XCTSkipUnless(FileManager.default.isExecutableFile(atPath: "/usr/bin/loudgain"), "loudgain is not installed (scripts/install-deps)")
        let music = try makeLibrary()
        let raw = music.file("played.raw")
        let config = """
            loudness_analysis "yes"
            replaygain "track"
            audio_output {
                type "pipe"
                name "to a file"
                command "cat > '\(raw)'"
                format "44100:16:2"
                mixer_type "none"
            }
            """
        let daemon = try ServerProcess(.nimbus, config: config, musicDirectory: music.path, nullOutput: false)
        try daemon.waitForDatabase(songs: 2)
        let client = try daemon.connect()
        XCTAssertTrue(waitForMeasured(client, 2))
        for command in ["add album/1.flac", "play"] { XCTAssertEqual(try client.request(command), ["OK"], command) }
        XCTAssertTrue(client.waitForStatus("state: stop", timeout: 60))
        XCTAssertTrue(waitUntil { (try? FileManager.default.attributesOfItem(atPath: raw)[.size] as? Int) == 44100 * 4 * 6 })
        let wav = music.file("played.flac")
        _ = try runTool("sox", ["-t", "raw", "-r", "44100", "-e", "signed", "-b", "16", "-c", "2", raw, wav])
        let line = try runTool("/usr/bin/loudgain", ["-O", "-q", wav]).split(separator: "\n").dropFirst().first ?? ""
        let loudness = Double(line.split(separator: "\t")[1].split(separator: " ").first ?? "") ?? .nan
        XCTAssertEqual(loudness, -18, accuracy: 0.5, "played at \(loudness) LUFS")
    }

    /// Phones get the box's figures as OpenSubsonic's `replayGain` of each song.
    func testPhonesGetTheMeasuredReplayGain() throws {
        let music = try makeLibrary()
        let web = freePort()
        let user = "subsonic_user {\n    name \"anna\"\n    password \"sesame\"\n    permissions \"read\"\n}\n"
        let daemon = try ServerProcess(
            .nimbus, config: "loudness_analysis \"yes\"\nweb {\n    port \"\(web)\"\n}\n" + user, musicDirectory: music.path)
        try daemon.waitForDatabase(songs: 2)
        let client = try daemon.connect()
        XCTAssertTrue(waitForMeasured(client, 2))
        let measured = values(try client.request("loudness album/1.flac"))
        let body = try runTool("curl", ["-s", "http://127.0.0.1:\(web)/rest/search3?u=anna&p=sesame&v=1.16.1&c=test&f=json&query=&songCount=10"])
        let response = (try JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: Any])?["subsonic-response"] as? [String: Any]
        let songs = ((response?["searchResult3"] as? [String: Any])?["song"] as? [[String: Any]]) ?? []
        let song = try XCTUnwrap(songs.first { ($0["path"] as? String) == "album/1.flac" }, body)
        let gain = try XCTUnwrap(song["replayGain"] as? [String: Any], "\(song)")
        XCTAssertEqual(gain["trackGain"] as? Double ?? .nan, Double(measured["track_gain"] ?? "") ?? 0, accuracy: 0.01)
        XCTAssertEqual(gain["albumGain"] as? Double ?? .nan, Double(measured["album_gain"] ?? "") ?? 0, accuracy: 0.01)
        XCTAssertEqual(gain["trackPeak"] as? Double ?? .nan, Double(measured["track_peak"] ?? "") ?? 0, accuracy: 0.000001)
        XCTAssertEqual(gain["baseGain"] as? Double, 0)
    }

    /// `loudness_analysis "idle"`: nothing is measured while the box plays; it goes on at stop.
    func testIdleModeWaitsWhileTheBoxPlays() throws {
        let music = try makeLibrary()
        _ = try runTool("sox", ["-n", "-r", "44100", "-c", "2", "-b", "16", music.file("long.flac"), "synth", "60", "sine", "300"])
        let daemon = try ServerProcess(.nimbus, config: "loudness_analysis \"idle\"", musicDirectory: music.path)
        try daemon.waitForDatabase(songs: 3)
        let client = try daemon.connect()
        XCTAssertTrue(waitForMeasured(client, 3), daemon.log)
        for command in ["add long.flac", "play"] { XCTAssertEqual(try client.request(command), ["OK"], command) }
        XCTAssertTrue(client.waitForStatus("state: play"))
        XCTAssertEqual(values(try client.request("analyze album"))["songs"], "2")
        var status: [String: String] = [:]
        XCTAssertTrue(waitUntil { status = values((try? client.request("analysisstatus")) ?? []); return status["state"] == "paused" }, "\(status)")
        XCTAssertEqual(status["pending"], "2", "nothing measured while playing")
        XCTAssertEqual(try client.request("stop"), ["OK"])
        XCTAssertTrue(waitUntil(timeout: 30) { values((try? client.request("analysisstatus")) ?? [])["pending"] == "0" }, "measured after stop")
    }
}
