import Foundation
import NimbusHarness
import XCTest

/// Database commands against Debian's MPD and nimbusd on the same generated fixture library.
final class LibraryDifferentialTests: XCTestCase {
    /// The fixture library has 12 songs MPD and Nimbus both index (random.mp3 is skipped).
    static let fixtureSongs = 12

    /// MPD decodes MP3 with libmad (24-bit, length without gapless trimming) and 24-bit WAV with
    /// libsndfile (reported as 32-bit); Nimbus uses libmpg123 (16-bit, exact gapless length)
    /// and reads WAV natively. Those fields differ legitimately and are masked.
    static func maskDecoderDifferences(_ lines: [String]) -> [String] {
        var currentFile = ""
        return lines.map { line in
            guard let close = line.firstIndex(of: "]") else { return line }
            let prefix = line[...close]
            let contentStart = line.index(close, offsetBy: 2, limitedBy: line.endIndex) ?? line.endIndex
            let content = line[contentStart...]
            if content.hasPrefix("file: ") {
                currentFile = String(content.dropFirst(6))
            } else if content.hasPrefix("directory: ") || content == "OK" || content.hasPrefix("ACK ") {
                currentFile = ""
            }
            let isMP3 = currentFile.lowercased().hasSuffix(".mp3")
            let is24BitWAV = currentFile.hasSuffix("id3 chunk.wav")
            for key in ["Format: ", "Time: ", "duration: "] where content.hasPrefix(key) {
                if isMP3 || (is24BitWAV && key == "Format: ") { return prefix + " " + key + "*" }
            }
            return line
        }
    }

    private func harness() throws -> DifferentialHarness {
        DifferentialHarness(
            musicDirectory: try Fixtures.library(), songs: Self.fixtureSongs, mask: Self.maskDecoderDifferences)
    }

    func testBrowsing() throws {
        try harness().compare([
            .exchange(
                "browse",
                [
                    "lsinfo", "lsinfo \"\"", "lsinfo /", "lsinfo \"Alpha Band\"", "lsinfo \"Alpha Band/First Light\"",
                    "lsinfo \"Beta/Beta Sides/02 - Old Tag.mp3\"", "lsinfo nosuch", "listall", "listall Beta",
                    "listall \"Alpha Band/First Light/01 - Dawn.flac\"", "listall nosuch", "listallinfo",
                    "listallinfo \"Various/quotes \\\"and\\\" spaces\"", "listfiles \"Alpha Band/First Light\"",
                    "listfiles nosuch", "stats",
                ]),
            .exchange(
                "tag mask",
                ["tagtypes clear", "tagtypes enable Artist Title", "lsinfo \"Alpha Band/First Light\"", "tagtypes all"]),
        ])
    }

    func testFindAndSearch() throws {
        try harness().compare([
            .exchange(
                "legacy",
                [
                    "find artist Beta", "find Artist \"Alpha Band\" Album \"First Light\"", "find ARTIST \"Alpha Band\"",
                    "search artist bet", "find artist Bet", "search any \"alpha band\"", "search any alpha any band",
                    "find any \"Alpha Band\"", "find albumartist Beta", "find file \"untagged.wav\"", "search file UNTAGGED",
                    "search filename old", "find filename Old", "find base Beta", "count base Beta", "find base \"\"",
                    "find modified-since 0", "find modified-since garbage", "find artist", "find artist x title",
                    "find nosuchtag x", "find Beta", "search title café", "search title CAFÉ", "search any ёлка",
                ]),
            .exchange(
                "expressions",
                [
                    "find \"(artist == 'Beta')\"", "search \"(artist == 'beta')\"", "find \"(artist contains 'Bet')\"",
                    "search \"(title contains 'ЁЛКА')\"", "count \"(title == 'dawn')\"", "count \"(title contains 'AW')\"",
                    "search \"(title contains 'AW')\" window 0:1", "find \"(Artist == '')\"", "count \"(Artist != '')\"",
                    "count \"(album contains '')\"", "count \"(title !~ '[aeiou]')\"", "count \"(artist =~ 'Beta|Alpha')\"",
                    "count \"(artist !~ 'Beta')\"", "count \"(artist != 'Beta')\"", "count \"(albumartist == 'Beta')\"",
                    "count \"(AlbumArtist == 'Alpha Band')\"", "count \"(any contains 'Beta')\"", "count \"(any == 'Beta')\"",
                    "count \"(file contains 'Beta')\"", "count \"(file == 'untagged.wav')\"", "count \"(file != 'untagged.wav')\"",
                    "find \"(base 'Beta')\"", "find \"(base 'Nope')\"", "count \"(modified-since '2020-01-01')\"",
                    "count \"(modified-since '2020-01-01T00:00:00Z')\"", "count \"(modified-since '1999999999')\"",
                    "find \"(modified-since 'garbage')\"", "count \"(AudioFormat == '44100:f:2')\"",
                    "count \"(AudioFormat =~ '*:*:1')\"", "find \"(AudioFormat == 'garbage')\"",
                    "find \"(AudioFormat != '44100:16:2')\"", "find \"(!(artist == 'Beta'))\" window 0:1",
                    "find \"((artist == 'Beta') AND (track == '1'))\"", "find \"((artist == 'Beta'))\" window 0:1",
                    "find \"(title == \\\"Allegro \\\\\\\"quoted\\\\\\\"\\\")\"", "find \"(Artist == \\\"foo\\\\'bar\\\\\\\"\\\")\"",
                    "count artist Beta \"(track == '1')\"", "count \"(artist == 'x')\" \"(album == 'y')\"",
                ]),
            .exchange(
                "expression errors",
                [
                    "find \"(\"", "find \"()\"", "find \"(artist ==)\"", "find \"(artist == x)\"",
                    "find \"(artist == 'x\"", "find \"(artist == 'x')x\"", "find \"(artist == 'x'\"", "find \"(!artist == 'x')\"",
                    "find \"((artist == 'x') and (album == 'y'))\"", "find \"((artist == 'x') (album == 'y'))\"",
                    "find \"(base == 'x')\"", 
                    "count \"(artist == 'a' OR title == 'b')\"", "count \"(track == '1')\" artist",
                ]),
            .exchange(
                "sort and window",
                [
                    "find artist Beta sort title", "find artist Beta sort -title", "find artist Beta sort Track",
                    "find artist Beta sort -Last-Modified window 0:1", "find artist Beta sort bogus", "find artist Beta sort any",
                    "find artist Beta window 0:1 sort title", "find artist Beta sort title window 0:1",
                    "find artist Beta window 5", "find artist Beta window 1:", "find artist Beta window -1",
                    "find artist Beta window 2:1", "find artist Beta window x", "search any a sort Album window 2:4",
                ]),
        ])
    }

    /// MPD counts every song a rescan reads as modified: `database` wakes idlers even when
    /// nothing changed; after an `update` that finds nothing it stays silent.
    func testRescanRaisesDatabaseAndAnUnchangedUpdateDoesNot() throws {
        try XCTSkipUnless(ServerProcess.mpdAvailable, "Debian's mpd is not installed (scripts/install-deps)")
        let music = try Fixtures.library()
        for kind in [ServerProcess.Kind.mpd, .nimbus] {
            let daemon = try ServerProcess(kind, musicDirectory: music)
            try daemon.waitForDatabase(songs: Self.fixtureSongs)
            let client = try daemon.connect()
            // Events of the start-up scan are read off first.
            try client.send("idle database update\nnoidle\n")
            _ = try client.readResponse()
            for (command, database) in [("update", false), ("rescan", true), ("update", false)] {
                XCTAssertEqual(try client.request(command).last, "OK")
                XCTAssertTrue(waitUntil(timeout: 30) { (try? client.request("status"))?.contains { $0.hasPrefix("updating_db") } == false })
                try client.send("idle database update\nnoidle\n")
                let events = try client.readResponse()
                XCTAssertEqual(events.contains("changed: database"), database, "\(command) on \(kind): \(events)")
            }
        }
    }

    func testCountAndList() throws {
        try harness().compare([
            .exchange(
                "count",
                [
                    "count group artist", "count group album", "count group date", "count \"(genre == 'Rock')\" group album",
                    "count \"(artist == 'Beta')\" group genre", "count artist x group", "count artist x group bogus",
                    "count group artist group album", "count artist Beta window 0:1", "count \"\"",
                ]),
            .exchange(
                "list",
                [
                    "list Album", "list Artist", "list date", "list track", "list AlbumArtist", "list albumartistsort",
                    "list genre group date", "list Album group Artist group Date", "list album group albumartist",
                    "list Artist group AlbumArtist", "list Album artist Beta", "list Album artist Beta group date",
                    "list album Beta", "list album \"\"", "list artist Beta", "list album \"(artist == 'Beta')\"",
                    "list album \"(artist == 'Beta')\" group date", "list file", "list bogus", "list any",
                    "list album group bogus", "list album group", "list album window 0:1", "list \"(artist == 'Beta')\"",
                ]),
        ])
    }

    func testPicturesAndComments() throws {
        try harness().compare([
            .exchange(
                "pictures",
                [
                    "albumart \"Alpha Band/First Light/01 - Dawn.flac\" 0", "albumart \"Alpha Band/First Light/01 - Dawn.flac\" 73",
                    "albumart \"Alpha Band/First Light/01 - Dawn.flac\" 74", "albumart untagged.wav 0", "albumart nosuch 0",
                    "albumart \"Alpha Band/First Light/cover.png\" 0", "albumart \"Alpha Band/First Light/01 - Dawn.flac\" x",
                    "readpicture \"Alpha Band/First Light/01 - Dawn.flac\" 0", "readpicture \"Alpha Band/First Light/02 - Noon.mp3\" 0",
                    "readpicture \"Alpha Band/First Light/01 - Dawn.flac\" 90", "readpicture untagged.wav 0",
                    "readpicture nosuch 0", "binarylimit 64", "albumart \"Alpha Band/First Light/01 - Dawn.flac\" 0",
                    "albumart \"Alpha Band/First Light/01 - Dawn.flac\" 64", "readpicture \"Alpha Band/First Light/01 - Dawn.flac\" 64",
                ]),
            .exchange(
                "comments",
                [
                    "readcomments \"Alpha Band/First Light/01 - Dawn.flac\"", "readcomments \"Alpha Band/Second Wind/01 - Ёлка.ogg\"",
                    "readcomments \"Alpha Band/First Light/02 - Noon.mp3\"", "readcomments \"Alpha Band/First Light/03 - Dusk.wav\"",
                    "readcomments nosuch",
                ]),
        ])
    }

    /// Opus files (opusenc, tagged, one with an R128 gain and a cover): tags, `Format`,
    /// durations, comments and the cover as MPD's opus plugin answers them.
    func testOpusLikeMPD() throws {
        let music = TemporaryDirectory("nimbus-opus-library")
        try FileManager.default.createDirectory(atPath: music.file("Joined"), withIntermediateDirectories: true)
        let wav = music.file("source.wav")
        try runTool("sox", ["-n", "-r", "48000", "-c", "2", "-b", "16", wav, "synth", "1.5", "sine", "441"])
        let cover = music.file("cover.png")
        try runTool("sox", ["-n", "-r", "8000", "-c", "1", music.file("tone.wav"), "synth", "0.1", "sine", "300"])
        try runTool("sox", [music.file("tone.wav"), "-n", "spectrogram", "-x", "100", "-y", "65", "-r", "-o", cover])
        try runTool("opusenc", [
            "--quiet", "--title", "Première", "--artist", "Opus Band", "--album", "Joined", "--tracknumber", "1/2",
            "--date", "2024", "--comment", "ALBUMARTIST=Opus Band", "--comment", "R128_TRACK_GAIN=-512", "--picture", cover,
            wav, music.file("Joined/01.opus"),
        ])
        try runTool("opusenc", ["--quiet", "--title", "Second", "--artist", "Opus Band", "--downmix-mono", wav, music.file("Joined/02.opus")])
        for name in ["source.wav", "tone.wav", "cover.png"] { try FileManager.default.removeItem(atPath: music.file(name)) }
        // MPD's scan counts the pre-skip (312 frames nobody hears) in the length; Nimbus gives
        // the exact playable length (README, deliberate differences).
        let exactLength: ([String]) -> [String] = { lines in
            lines.map { $0.contains("] duration: ") ? String($0.prefix { $0 != "]" }) + "] duration: *" : $0 }
        }
        try DifferentialHarness(musicDirectory: music.path, songs: 2, mask: exactLength).compare([
            .exchange(
                "opus",
                [
                    "lsinfo Joined", "find artist \"Opus Band\"", "list album", "readcomments Joined/01.opus",
                    "readpicture Joined/01.opus 0", "readpicture Joined/02.opus 0", "count artist \"Opus Band\"",
                ]),
        ])
    }

    /// AAC and ALAC in .m4a (Debian's ffmpeg), tagged, one with a cover; a truncated and a
    /// random-bytes .m4a that both daemons leave out: tags, `Format`, durations, comments and
    /// the cover as MPD's FFmpeg plugin answers them.
    func testM4ALikeMPD() throws {
        let music = TemporaryDirectory("nimbus-m4a-library")
        try FileManager.default.createDirectory(atPath: music.file("Store"), withIntermediateDirectories: true)
        let wav = music.file("source.wav")
        try runTool("sox", ["-n", "-r", "44100", "-c", "2", "-b", "16", wav, "synth", "1.3", "sine", "300-900"])
        let cover = music.file("cover.png")
        let quiet = ["-hide_banner", "-loglevel", "error", "-y"]
        let exact = ["-fflags", "+bitexact", "-flags:a", "+bitexact"]
        try runTool("ffmpeg", quiet + ["-f", "lavfi", "-i", "color=c=blue:s=8x8:d=1", "-frames:v", "1", cover])
        let tags = [
            "-metadata", "title=Bought Song", "-metadata", "artist=Store Artist", "-metadata", "album=Store Album",
            "-metadata", "album_artist=Store Band", "-metadata", "track=2/10", "-metadata", "disc=1/1", "-metadata", "date=2021",
            "-metadata", "genre=Pop", "-metadata", "composer=Some Writer",
        ]
        try runTool("ffmpeg", quiet + ["-i", wav, "-i", cover, "-map", "0", "-map", "1", "-c:a", "aac", "-b:a", "192k", "-c:v", "copy",
            "-disposition:v", "attached_pic"] + tags + exact + [music.file("Store/01 aac.m4a")])
        try runTool("ffmpeg", quiet + ["-i", wav, "-c:a", "alac", "-metadata", "title=Lossless"] + exact + [music.file("Store/02 alac.m4a")])
        let whole = try Data(contentsOf: URL(fileURLWithPath: music.file("Store/01 aac.m4a")))
        try whole.prefix(whole.count / 3).write(to: URL(fileURLWithPath: music.file("Store/truncated.m4a")))
        var random = SeededRandom(seed: 11)
        try Data((0..<8192).map { _ in UInt8.random(in: 0...255, using: &random) }).write(to: URL(fileURLWithPath: music.file("Store/random.m4a")))
        for name in ["source.wav", "cover.png"] { try FileManager.default.removeItem(atPath: music.file(name)) }
        try DifferentialHarness(musicDirectory: music.path, songs: 2).compare([
            .exchange(
                "m4a",
                [
                    "lsinfo Store", "find album \"Store Album\"", "list albumartist", "readcomments \"Store/01 aac.m4a\"",
                    "readpicture \"Store/01 aac.m4a\" 0", "readpicture \"Store/02 alac.m4a\" 0", "stats",
                ]),
        ])
    }
}
