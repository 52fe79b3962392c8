import Foundation
import NimbusHarness
import XCTest

/// CUE sheets as MPD lists and plays them, against Debian's MPD on the same folder: an album
/// ripped as one image with a sheet beside it becomes `playlist: x.cue` and a folder of
/// `track0001`… with the sheet's tags, `Range` and lengths; the image is hidden; the tracks
/// are found, listed, counted, queued and read as a playlist.
final class CueSheetTests: XCTestCase {
    /// Album/image.flac (12 s) with Album/image.cue: three tracks, a pregap, REM tags, a
    /// guest performer; Latin/image.wav with a Windows-1252 sheet and no byte-order mark.
    static func library() throws -> TemporaryDirectory {
        let work = TemporaryDirectory("nimbus-cue")
        for folder in ["music/Album", "music/Latin"] {
            try FileManager.default.createDirectory(atPath: work.file(folder), withIntermediateDirectories: true)
        }
        let wav = work.file("music/Latin/image.wav")
        try AudioFixtures.writeRampWAV(to: wav, frames: 44100 * 12)
        try runTool("flac", ["-s", "-f", "-o", work.file("music/Album/image.flac"), wav])
        _ = work.write(
            "music/Album/image.cue",
            """
            REM GENRE Rock
            REM DATE 1999
            REM COMMENT "ripped here"
            PERFORMER "The Band"
            TITLE "The Album"
            FILE "image.flac" WAVE
              TRACK 01 AUDIO
                TITLE "One"
                INDEX 01 00:00:00
              TRACK 02 AUDIO
                TITLE "Two"
                PERFORMER "Guest"
                INDEX 00 00:03:50
                INDEX 01 00:04:00
              TRACK 03 AUDIO
                TITLE "Three"
                INDEX 01 00:08:37

            """)
        let latin = Array("PERFORMER \"Caf".utf8) + [0xE9] + Array("\"\nTITLE \"Ol".utf8) + [0xE9]
            + Array("\"\nFILE \"image.wav\" WAVE\n  TRACK 01 AUDIO\n    TITLE \"Un\"\n    INDEX 01 00:00:00\n  TRACK 02 AUDIO\n    TITLE \"Deux\"\n    INDEX 01 00:06:00\n".utf8)
        try Data(latin).write(to: URL(fileURLWithPath: work.file("music/Latin/image.cue")))
        for file in ["Album/image.cue", "Album/image.flac", "Latin/image.cue", "Latin/image.wav", "Album", "Latin"] {
            try FileManager.default.setAttributes(
                [.modificationDate: Date(timeIntervalSince1970: 1_700_000_000)], ofItemAtPath: work.file("music/" + file))
        }
        return work
    }

    func testCueTracksAreListedFoundAndQueuedAsMPDDoes() throws {
        let work = try Self.library()
        // Deliberately better: MPD shows a Windows-1252 sheet's é as "?", Nimbus converts it.
        let legacy = { (lines: [String]) in
            lines.map { $0.replacingOccurrences(of: "Caf?", with: "Café").replacingOccurrences(of: "Ol?", with: "Olé") }
        }
        try DifferentialHarness(musicDirectory: work.file("music"), songs: 5, mask: legacy).compare([
            .exchange(
                "listed",
                [
                    "lsinfo Album", "lsinfo Album/image.cue", "lsinfo Latin/image.cue", "listall", "listallinfo Album",
                    "lsinfo Album/image.flac",
                ]),
            .exchange(
                "found",
                [
                    "find album \"The Album\"", "search title t", "list album", "list albumartist", "count album \"The Album\"",
                    "find artist Guest",
                ]),
            .exchange(
                "queued",
                [
                    "add Album/image.cue/track0002", "add Album/image.cue", "playlistinfo", "clear",
                    "listplaylist Album/image.cue", "listplaylistinfo Album/image.cue", "load Album/image.cue 1:3", "playlistinfo",
                ]),
        ])
    }

    /// Two tracks of one image queued from the sheet play as their parts of the file, the
    /// second straight after the first: every frame from track 2's start to the image's end,
    /// once and in order, through ALSA.
    func testTracksPlayTheirPartOfTheImageGaplessly() throws {
        let work = try Self.library()
        let capture = ALSACapture(in: work)
        let daemon = try ServerProcess(
            .nimbus, config: ALSACapture.outputBlock(), musicDirectory: work.file("music"), nullOutput: false,
            environment: capture.environment)
        try daemon.waitForDatabase(songs: 5)
        let client = try daemon.connect()
        for command in ["add Album/image.cue/track0002", "add Album/image.cue/track0003", "play"] {
            XCTAssertEqual(try client.request(command), ["OK"], command)
        }
        XCTAssertTrue(client.waitForStatus("state: stop", timeout: 60), "playback did not end")
        // The image is a ramp: left is the frame's low 16 bits, right its high bits.
        let bytes = capture.bytes
        let frames = stride(from: 0, to: bytes.count - 3, by: 4).map { (offset: Int) -> Int in
            let low = Int(bytes[offset]) | Int(bytes[offset + 1]) << 8
            let high = Int(bytes[offset + 2]) | Int(bytes[offset + 3]) << 8
            return low | high << 16
        }
        XCTAssertEqual(frames.first, 176_400, "track 2 starts at 4.000 s")
        XCTAssertEqual(frames.last, 44100 * 12 - 1, "track 3 plays to the image's end")
        XCTAssertEqual(frames, Array(176_400..<(44100 * 12)), "every frame once, no gap between the tracks")
    }

    /// A CUE sheet inside the FLAC file (a `CUESHEET` comment, as EAC writes it): MPD lists
    /// the file as a song and as a playlist of its tracks, each a part of the file.
    func testAnEmbeddedSheetMakesTheFileAPlaylistTooAsMPDDoes() throws {
        let work = TemporaryDirectory("nimbus-embedded-cue")
        try FileManager.default.createDirectory(atPath: work.file("music"), withIntermediateDirectories: true)
        let wav = work.file("ramp.wav")
        try AudioFixtures.writeRampWAV(to: wav, frames: 44100 * 12)
        try runTool("flac", ["-s", "-f", "-o", work.file("music/album.flac"), wav])
        let sheet = work.write(
            "sheet.cue",
            "PERFORMER \"Emb Band\"\nTITLE \"Emb Album\"\nFILE \"album.flac\" WAVE\n  TRACK 01 AUDIO\n    TITLE \"First\"\n"
                + "    INDEX 01 00:00:00\n  TRACK 02 AUDIO\n    TITLE \"Second\"\n    INDEX 01 00:05:00\n")
        try runTool("metaflac", ["--set-tag-from-file=CUESHEET=\(sheet)", work.file("music/album.flac")])
        try FileManager.default.setAttributes(
            [.modificationDate: Date(timeIntervalSince1970: 1_700_000_000)], ofItemAtPath: work.file("music/album.flac"))
        try DifferentialHarness(musicDirectory: work.file("music"), songs: 1).compare([
            .exchange("listed", ["lsinfo", "listall", "listallinfo", "lsinfo album.flac"]),
            .exchange("read", ["listplaylist album.flac", "listplaylistinfo album.flac", "load album.flac", "playlistinfo"]),
        ])
    }
}
