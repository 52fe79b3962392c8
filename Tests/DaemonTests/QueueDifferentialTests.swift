import Foundation
import NimbusHarness
import XCTest

/// Queue, option, output and stored-playlist commands against Debian's MPD and nimbusd on the
/// same fixture library, with the player stopped so every answer is deterministic.
final class QueueDifferentialTests: XCTestCase {
    /// Modification times of stored playlists depend on when each daemon wrote them.
    static func maskPlaylistTimes(_ lines: [String]) -> [String] {
        var afterPlaylist = false
        return LibraryDifferentialTests.maskDecoderDifferences(lines).map { line in
            defer { afterPlaylist = line.contains("] playlist: ") }
            if afterPlaylist, line.contains("] Last-Modified: ") { return line.components(separatedBy: "Last-Modified: ")[0] + "Last-Modified: *" }
            return line
        }
    }

    private func harness() throws -> DifferentialHarness {
        DifferentialHarness(
            musicDirectory: try Fixtures.library(), songs: LibraryDifferentialTests.fixtureSongs, mask: Self.maskPlaylistTimes)
    }

    func testEditingTheQueue() throws {
        try harness().compare([
            .exchange(
                "add and inspect",
                [
                    "status", "add untagged.wav", "add \"Alpha Band\"", "add \"Alpha Band\" 0", "add ord 3", "add nosuch",
                    "add untagged.wav 99", "add untagged.wav +0", "add untagged.wav -1", "addid Beta", "addid nosuch",
                    "addid \"Beta/Beta Sides/01 - Gamma Ray.mp3\"", "addid \"Beta/Beta Sides/01 - Gamma Ray.mp3\" 1",
                    "addid \"Beta/Beta Sides/01 - Gamma Ray.mp3\" 99", "addid \"Beta/Beta Sides/01 - Gamma Ray.mp3\" x",
                    "add foo://bar", "addid http://127.0.0.1:9/stream.mp3", "add \"http://127.0.0.1:9/other.ogg\" 2",
                    "status", "playlist", "playlistinfo", "playlistinfo 3", "playlistinfo 2:5",
                    "playlistinfo 5:", "playlistinfo -1", "playlistinfo 99", "playlistinfo 24", "playlistinfo 23:99",
                    "playlistinfo x", "playlistid 3", "playlistid 999", "playlistid", "playlistfind artist Beta",
                    "playlistsearch \"(title contains 'ÉLKA')\"", "playlistsearch any alpha", "playlistfind \"(artist == \"",
                    "playlistfind file http://127.0.0.1:9/stream.mp3", "currentsong",
                ]),
            .exchange(
                "versions",
                [
                    "clear", "status", "add \"Alpha Band\"", "add ord", "status", "plchanges 0", "plchangesposid 3",
                    "delete 2", "plchangesposid 4", "move 0 3", "plchanges 5 0:2", "plchangesposid 5", "swap 0 1",
                    "plchangesposid 6", "plchanges 99", "plchanges x", "plchangesposid 6 1:", "prio 5 0:2 4",
                    "plchangesposid 7", "status", "add untagged.wav 4", "status", "addid untagged.wav 5", "status",
                    "prio 5 6:", "status", "prio 5 0", "status", "prio 5 0", "status", "add untagged.wav 0", "plchangesposid 12",
                ]),
            .exchange(
                "delete move swap",
                [
                    "clear", "add \"Alpha Band\"", "add ord", "delete 20", "delete 3:5", "delete 5:3", "delete 10:", "delete 10",
                    "delete 9:99", "delete x", "deleteid 1", "deleteid 999", "deleteid x", "playlist", "move 0 2", "move 1:3 0",
                    "move 0: 1", "move 0:9 0", "move 1:1 0", "move 1 99", "move 99 0", "move 0 +1", "move 0 -1", "moveid 3 0",
                    "moveid 999 0", "moveid 3 99", "moveid 3 +0", "swap 0 3", "swap 0 99", "swap x 0", "swapid 3 4",
                    "swapid 3 999", "playlist", "status", "move 1 1", "status", "shuffle 1", "shuffle 0:1", "status", "shuffle 9:",
                    "shuffle x", "delete 0:0", "delete -1", "playlist", "status",
                ]),
            .exchange(
                "priorities ranges tags",
                [
                    "clear", "add \"Alpha Band\"", "addid http://127.0.0.1:9/a.mp3", "prio 5 0:2 4", "prio 10 3",
                    "prio 256 0", "prio -1 0", "prio 1 99", "prio 1 5:", "prio 1 x", "prioid 7 1 2", "prioid 7 999",
                    "prioid 3 x", "playlistinfo", "rangeid 1 1.5:2.5", "rangeid 2 0.25:", "rangeid 3 :1",
                    "rangeid 4 2:1", "rangeid 4 x:", "rangeid 4 -", "rangeid 4 1-2", "rangeid 999 1:2", "rangeid 5 :",
                    "playlistinfo", "addtagid 6 artist X", "addtagid 6 title T", "addtagid 6 artist Y", "addtagid 1 artist X",
                    "addtagid 6 nosuch X", "addtagid 999 artist X", "playlistid 6", "cleartagid 6 artist", "playlistid 6",
                    "cleartagid 6", "playlistid 6", "cleartagid 6 nosuch", "cleartagid 1", "cleartagid 999", "status",
                ]),
        ])
    }

    func testCurrentSongAndRelativePositions() throws {
        try harness().compare([
            .exchange(
                "relative",
                [
                    "add \"Alpha Band\"", "add ord", "next", "previous", "seekcur 1", "play 99", "play -2", "play x", "playid 999",
                    "seek 99 1", "seek 1 -1", "seekid 999 1", "seekcur x", "play 2", "stop", "status", "currentsong",
                    "add untagged.wav +0", "add untagged.wav -0", "add untagged.wav +99", "add untagged.wav -9",
                    "addid untagged.wav +1", "playlist", "move 2 +0", "move 0 +0", "move 0 -0", "move 5:7 -1", "moveid 1 +1",
                    "playlist", "delete 2", "status", "currentsong", "delete 0:99", "status", "pause", "pause 1", "pause 2",
                    "stop", "clearerror",
                ]),
        ])
    }

    func testOptionsAndVolume() throws {
        try harness().compare([
            .exchange(
                "options",
                [
                    "repeat 1", "random 0", "single oneshot", "consume 1", "crossfade 3", "mixrampdb -17.5", "mixrampdelay 2",
                    "status", "single 1", "single 2", "single x", "repeat 2", "random x", "crossfade -1",
                    "crossfade 2.5", "mixrampdb x", "mixrampdelay nan", "status", "mixrampdelay -1", "mixrampdelay 0",
                    "status", "replay_gain_status", "replay_gain_mode album", "replay_gain_status", "replay_gain_mode x",
                    "replay_gain_mode auto", "replay_gain_status", "crossfade 0", "repeat 0", "single 0", "consume 0",
                    "status",
                ]),
            .exchange(
                "volume without mixer",
                ["getvol", "setvol 50", "setvol 101", "setvol -1", "setvol x", "volume 5", "volume 500", "volume x", "status"]),
            .exchange(
                "outputs",
                [
                    "outputs", "disableoutput 0", "outputs", "toggleoutput 0", "outputs", "enableoutput 0", "enableoutput 1",
                    "enableoutput x", "disableoutput -1", "toggleoutput 9", "outputset 0 dop 1", "outputset 9 dop 1",
                    "outputset x dop 1", "outputs",
                ]),
        ])
    }

    func testStoredPlaylists() throws {
        try harness().compare([
            .exchange(
                "stored playlists",
                [
                    "listplaylists", "add \"Alpha Band/First Light\"", "save p1", "save p1", "save a/b", "save \"\"",
                    "playlistadd p1 \"Beta/Beta Sides/01 - Gamma Ray.mp3\"", "playlistadd p1 nosuch.mp3",
                    "playlistadd p1 http://127.0.0.1:9/x.mp3", "playlistadd p1 Beta", "playlistadd p1 untagged.wav 0",
                    "playlistadd p1 untagged.wav 99", "playlistadd p1 untagged.wav x", "listplaylist p1",
                    "listplaylistinfo p1", "listplaylist nosuch", "listplaylistinfo nosuch", "listplaylists",
                    "playlistdelete p1 7", "playlistdelete p1 0:2", "playlistdelete p1 99", "playlistdelete p1 x",
                    "playlistdelete nosuch 0", "listplaylist p1", "playlistmove p1 0 3", "playlistmove p1 0 99",
                    "playlistmove p1 99 0", "listplaylist p1", "playlistclear nosuch",
                    "playlistadd newlist untagged.wav", "listplaylist newlist", "rename p1 p2", "rename p1 p2",
                    "rename p2 newlist", "rename p2 a/b", "rename nosuch other", "listplaylist p2", "clear", "load p2",
                    "playlist", "load p2 1:3 0", "load p2 x", "load p2 0:2 99", "load nosuch", "load p2 5:9", "playlist",
                    "playlistclear p2", "listplaylist p2", "lsinfo", "rm p2", "rm p2", "rm newlist", "listplaylists",
                    "save .hidden", "listplaylists", "rm .hidden",
                ]),
            .exchange(
                "search and add",
                [
                    "clear", "findadd artist Beta", "playlist", "searchadd title a", "playlist", "findadd artist Beta position 0",
                    "findadd artist Beta position 99", "searchadd \"(title contains 'DAWN')\" sort Title window 0:1", "playlist",
                    "findadd", "findadd \"(bogus == 'x')\"", "searchaddpl sp artist beta", "listplaylist sp",
                    "searchaddpl sp \"(title == 'Dawn')\"", "listplaylist sp", "searchaddpl sp", "rm sp",
                ]),
        ])
    }
}
