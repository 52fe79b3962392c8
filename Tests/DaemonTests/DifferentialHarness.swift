import Foundation
import NimbusHarness
import XCTest

/// Runs protocol scripts against Debian's MPD and nimbusd started with the same config (and
/// optionally the same music directory) and fails on the first differing line.
struct DifferentialHarness {
    /// Nimbus speaks MPD 0.24; Debian's MPD is 0.23. What 0.24 added to answers 0.23 also
    /// gives is left out of Nimbus's side before comparing (its greeting, the `Added` of songs,
    /// status' `lastloadedplaylist`, the new tag types); everything else must match.
    /// The commands MPD 0.24 added.
    static let newCommands = [
        "playlistlength", "protocol", "searchcount", "searchplaylist", "stickernames",
        "stickernamestypes", "stickertypes",
    ]
    /// Nimbus's own, for what MPD has no place for (offline pins, cloud accounts and their sign-in, the equalizer).
    static let nimbusCommands = [
        "accounttypes", "addaccount", "cachestatus", "sleeptimer", "podcastkeep", "podcastsubscribe", "podcastunsubscribe", "podcastrefresh",
        "listpodcasts", "removeaccount", "signin", "signincancel", "signincode", "signinpassword", "signout",
        "listaccounts", "listpins", "pausepin", "pin", "pinplaylist", "pinstatus", "resumepin", "retrypin", "unpin", "unpinplaylist",
        "subsonicusers", "subsonicuseradd", "subsonicuserdelete", "subsonickeyadd", "subsonickeydelete",
        "eqappend", "eqband", "eqbalance", "eqbypass", "eqcrossfeed", "eqdelete", "eqexport", "eqimport", "eqpresets", "eqset", "eqstatus",
    ]

    static func as023(_ lines: [String]) -> [String] {
        let newTags = ["TitleSort", "Mood", "ShowMovement", "MUSICBRAINZ_RELEASEGROUPID"]
        let prefixes = ["Added: ", "lastloadedplaylist: "] + newTags.map { $0 + ": " }
        let lines023 = Set(newTags.map { "tagtype: " + $0 } + (newCommands + nimbusCommands).map { "command: " + $0 })
        // readcomments prints the file's own keys, which 0.23 prints too.
        var inComments = false
        return lines.compactMap { line in
            // Transcript lines read "[0] text"; plain responses are the text alone.
            let text = line.hasPrefix("[") ? String(line.drop { $0 != "]" }.dropFirst(2)) : line
            if text.hasPrefix(">> ") { inComments = text.hasPrefix(">> \"readcomments ") }
            if text == "OK" || text.hasPrefix("ACK ") { inComments = false }
            if !inComments, prefixes.contains(where: text.hasPrefix) || lines023.contains(text) { return nil }
            return line.hasSuffix("OK MPD 0.24.0") ? String(line.dropLast(6)) + "0.23.5" : line
        }
    }

    /// Both daemons scan their music directory at start, and which one is still at it when a
    /// script's `status` arrives depends on the machine's load: `updating_db` lines of `status`
    /// answers are left out (those of `update` stay).
    static func withoutStartUpdate(_ lines: [String]) -> [String] {
        var inStatus = false
        return lines.filter { line in
            let text = line.hasPrefix("[") ? String(line.drop { $0 != "]" }.dropFirst(2)) : line
            if text.hasPrefix(">> ") { inStatus = text.hasPrefix(">> \"status") }
            return !(inStatus && text.hasPrefix("updating_db: "))
        }
    }

    var config = ""
    var musicDirectory: String?
    /// Songs both databases must hold before the scripts run.
    var songs: Int?
    /// Rewrites lines that legitimately differ (nil drops the line).
    var mask: ([String]) -> [String] = { $0 }

    func compare(_ scripts: [ProtocolScript], file: StaticString = #filePath, line: UInt = #line) throws {
        try XCTSkipUnless(ServerProcess.mpdAvailable, "Debian's mpd is not installed (scripts/install-deps)")
        let reference = try ServerProcess(.mpd, config: config, musicDirectory: musicDirectory)
        let nimbus = try ServerProcess(.nimbus, config: config, musicDirectory: musicDirectory)
        if let songs {
            try reference.waitForDatabase(songs: songs)
            try nimbus.waitForDatabase(songs: songs)
        }

        for script in scripts {
            let expected = mask(Self.withoutStartUpdate(try script.run(against: reference.endpoint)))
            let actual = mask(Self.withoutStartUpdate(Self.as023(try script.run(against: nimbus.endpoint))))
            guard expected != actual else { continue }
            let index = zip(expected, actual).enumerated().first { $0.element.0 != $0.element.1 }?.offset
                ?? min(expected.count, actual.count)
            XCTFail(
                """
                script \(script.name) differs at line \(index):
                MPD:    \(index < expected.count ? expected[index] : "<end>")
                nimbus: \(index < actual.count ? actual[index] : "<end>")
                MPD transcript:
                \(expected.joined(separator: "\n"))
                nimbus transcript:
                \(actual.joined(separator: "\n"))
                """, file: file, line: line)
        }
    }
}
