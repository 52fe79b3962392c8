import NimbusServer
import NimbusHarness
import XCTest

/// The command table is MPD's single source of truth: sorted, unique, and every row has a
/// behavioural check below that talks to a real server.
final class CommandTableTests: XCTestCase {
    typealias Check = @Sendable (TestServer, LineClient) throws -> Void

    /// One check per command; the table test fails when a command lacks one.
    static let checks = baseChecks.merging(CheckHelpers.queue) { $1 }.merging(CheckHelpers.player) { $1 }
        .merging(CheckHelpers.storedPlaylists) { $1 }.merging(CheckHelpers.rest) { $1 }
        .merging(CheckHelpers.accounts) { $1 }.merging(CheckHelpers.spokenWord) { $1 }.merging(CheckHelpers.apiUsers) { $1 }
        .merging(CheckHelpers.sound) { $1 }

    static let baseChecks: [String: Check] = [
        "binarylimit": { _, c in XCTAssertEqual(try c.request("binarylimit 128"), ["OK"]) },
        "channels": { _, c in
            XCTAssertEqual(try c.request("subscribe news"), ["OK"])
            XCTAssertEqual(try c.request("channels"), ["channel: news", "OK"])
        },
        "listaccounts": { _, c in XCTAssertEqual(try c.request("listaccounts"), ["OK"], "no cloud accounts configured") },
        "listpins": { _, c in XCTAssertEqual(try c.request("listpins"), ["OK"]) },
        "cachestatus": { _, c in
            let answer = try c.request("cachestatus")
            XCTAssertEqual(answer.map { $0.split(separator: ":").first.map(String.init) ?? "" }, ["cache_size", "cache_used", "pinned", "disk_free", "OK"])
            XCTAssertEqual(answer[2], "pinned: 0", "nothing pinned")
        },
        "pin": { _, c in
            XCTAssertEqual(try c.request("pin nope"), ["ACK [50@0] {pin} No such song or directory"])
            XCTAssertEqual(try c.request("pin \"\""), ["ACK [2@0] {pin} Pin a cloud account or a folder or song in one, not the whole library"])
            let local = try c.request("lsinfo").first { $0.hasPrefix("directory: ") }.map { String($0.dropFirst(11)) } ?? ""
            XCTAssertEqual(
                try c.request("pin \"\(local)\""), ["ACK [2@0] {pin} \"\(local)\" is in the local music directory: it is always on disk"])
            XCTAssertEqual(try c.request("listpins"), ["OK"], "a refused pin leaves nothing behind")
        },
        "pinplaylist": { _, c in XCTAssertEqual(try c.request("pinplaylist nope"), ["ACK [50@0] {pinplaylist} No such playlist"]) },
        "pinstatus": { _, c in
            XCTAssertEqual(try c.request("pinstatus"), ["OK"])
            XCTAssertEqual(try c.request("pinstatus x"), ["ACK [50@0] {pinstatus} \"x\" is not pinned"])
        },
        "pausepin": { _, c in
            XCTAssertEqual(try c.request("pausepin"), ["OK"], "every pin: none")
            XCTAssertEqual(try c.request("pausepin x"), ["ACK [50@0] {pausepin} \"x\" is not pinned"])
        },
        "resumepin": { _, c in XCTAssertEqual(try c.request("resumepin x"), ["ACK [50@0] {resumepin} \"x\" is not pinned"]) },
        "retrypin": { _, c in XCTAssertEqual(try c.request("retrypin"), ["OK"]) },
        "unpin": { _, c in XCTAssertEqual(try c.request("unpin x"), ["ACK [50@0] {unpin} \"x\" is not pinned"]) },
        "unpinplaylist": { _, c in XCTAssertEqual(try c.request("unpinplaylist x"), ["ACK [50@0] {unpinplaylist} playlist \"x\" is not pinned"]) },
        "close": { _, c in XCTAssertEqual(try c.sendAndReadUntilClosed("close\n"), "") },
        "commands": { _, c in
            let commands = try c.request("commands")
            XCTAssertEqual(commands.last, "OK")
            XCTAssertEqual(commands.dropLast(), commands.dropLast().sorted(), "in name order, Nimbus's own among MPD's")
            XCTAssertTrue(commands.contains("command: add"))
        },
        "config": { s, c in
            XCTAssertEqual(
                try s.connectLocal().request("config"),
                ["music_directory: \(s.musicDirectory)", "playlist_directory: \(s.playlistDirectory)", "pcre: 1", "OK"])
            XCTAssertEqual(try c.request("config"), ["ACK [4@0] {config} Command only permitted to local clients"])
        },
        "decoders": { _, c in
            let lines = try c.request("decoders")
            XCTAssertEqual(lines.filter { $0.hasPrefix("plugin: ") }, ["plugin: mpg123", "plugin: vorbis", "plugin: flac", "plugin: opus", "plugin: oggflac", "plugin: wave", "plugin: mpcdec", "plugin: ffmpeg"])
            let flac = try XCTUnwrap(lines.firstIndex(of: "plugin: flac"))
            XCTAssertEqual(lines[flac + 1], "suffix: flac")
            XCTAssertTrue(lines[flac...].prefix { $0 != "plugin: wave" }.contains("mime_type: audio/flac"))
        },
        "idle": { s, c in
            try c.send("idle update\n")
            try s.emit(.update)
            XCTAssertEqual(try c.readResponse(), ["changed: update", "OK"])
        },
        "kill": { s, c in
            XCTAssertEqual(try c.request("ping"), ["OK"])
            XCTAssertEqual(try c.sendAndReadUntilClosed("kill\n"), "")
            XCTAssertTrue(waitUntil { s.hasShutDown }, "kill did not shut the daemon down")
            XCTAssertThrowsError(try s.connect(), "the daemon still accepts connections after kill")
        },
        "notcommands": { _, c in XCTAssertEqual(try c.request("notcommands"), ["OK"]) },
        "password": { _, c in XCTAssertEqual(try c.request("password nope"), ["ACK [3@0] {password} incorrect password"]) },
        "ping": { _, c in XCTAssertEqual(try c.request("ping"), ["OK"]) },
        "lsinfo": { _, c in XCTAssertEqual(try c.request("lsinfo \"Alpha Band\"").first, "directory: Alpha Band/First Light") },
        "listall": { _, c in XCTAssertEqual(try c.request("listall Beta").count, 6) },
        "listallinfo": { _, c in XCTAssertTrue(try c.request("listallinfo Beta").contains("Title: Gamma Ray")) },
        "listfiles": { _, c in XCTAssertTrue(try c.request("listfiles \"Alpha Band/First Light\"").contains("file: cover.png")) },
        "find": { _, c in XCTAssertEqual(try c.request("find title Dusk").first, "file: Alpha Band/First Light/03 - Dusk.wav") },
        "search": { _, c in XCTAssertEqual(try c.request("search title dusk").first, "file: Alpha Band/First Light/03 - Dusk.wav") },
        "count": { _, c in XCTAssertEqual(try c.request("count artist Beta"), ["songs: 3", "playtime: 6", "OK"]) },
        "searchcount": { _, c in
            XCTAssertEqual(try c.request("count artist beta"), ["songs: 0", "playtime: 0", "OK"])
            XCTAssertEqual(try c.request("searchcount artist beta group album"), ["Album: Beta Sides", "songs: 3", "playtime: 6", "OK"])
        },
        "list": { _, c in XCTAssertEqual(try c.request("list album artist Beta"), ["Album: Beta Sides", "OK"]) },
        "update": { s, c in
            try c.send("idle update\n")
            let other = try s.connect()
            XCTAssertEqual(try other.request("update Beta"), ["updating_db: 2", "OK"])
            XCTAssertEqual(try c.readResponse(), ["changed: update", "OK"])
        },
        "rescan": { _, c in XCTAssertEqual(try c.request("rescan"), ["updating_db: 2", "OK"]) },
        "albumart": { _, c in
            XCTAssertEqual(try c.request("albumart \"Alpha Band/First Light/x.flac\" 80"), ["ACK [2@0] {albumart} Offset too large"])
            // Cantata names the album's directory with a trailing slash (MPD 0.23 answers it).
            XCTAssertEqual(Array(try c.request("albumart \"Alpha Band/First Light/\" 0").prefix(2)), ["size: 73", "binary: 73"])
            XCTAssertEqual(try c.request("albumart \"Alpha Band/\" 0"), ["ACK [50@0] {albumart} No file exists"])
        },
        "getfingerprint": { _, c in
            XCTAssertEqual(try c.request("getfingerprint \"Alpha Band/First Light/01 - Dawn.flac\""), ["chromaprint: AQAAA0mUaEkSZSoA", "OK"])
        },
        "readpicture": { _, c in XCTAssertEqual(try c.request("readpicture untagged.wav 0"), ["OK"]) },
        "readcomments": { _, c in
            XCTAssertEqual(try c.request("readcomments \"Alpha Band/Second Wind/02 - Café.ogg\"").first, "ARTIST: Alpha Band")
        },
        "readmessages": { _, c in
            XCTAssertEqual(try c.request("subscribe me"), ["OK"])
            XCTAssertEqual(try c.request("sendmessage me hi"), ["OK"])
            XCTAssertEqual(try c.request("readmessages"), ["channel: me", "message: hi", "OK"])
        },
        "sendmessage": { _, c in
            XCTAssertEqual(
                try c.request("sendmessage nobody hi"), ["ACK [50@0] {sendmessage} nobody is subscribed to this channel"])
        },
        "stats": { _, c in
            let lines = try c.request("stats")
            XCTAssertEqual(lines.map { $0.split(separator: ":")[0] }, ["uptime", "playtime", "artists", "albums", "songs", "db_playtime", "db_update", "OK"])
            XCTAssertTrue(lines.contains("songs: 12"))
        },
        "status": { _, c in
            XCTAssertEqual(
                try c.request("status"),
                ["volume: 100", "repeat: 0", "random: 0", "single: 0", "consume: 0", "partition: default", "playlist: 1",
                 "playlistlength: 0", "mixrampdb: 0", "state: stop", "lastloadedplaylist: ", "OK"])
        },
        "subscribe": { _, c in
            XCTAssertEqual(try c.request("subscribe x"), ["OK"])
            XCTAssertEqual(try c.request("subscribe x"), ["ACK [56@0] {subscribe} already subscribed to this channel"])
            XCTAssertEqual(try c.request(#"subscribe "a b""#), ["ACK [2@0] {subscribe} invalid channel name"])
            for channel in 1..<16 { XCTAssertEqual(try c.request("subscribe c\(channel)"), ["OK"]) }
            XCTAssertEqual(try c.request("subscribe c16"), ["ACK [56@0] {subscribe} subscription list is full"], "16 channels at most")
        },
        "tagtypes": { _, c in
            XCTAssertEqual(try c.request("tagtypes").count, 35)
            XCTAssertEqual(try c.request("tagtypes available").count, 35)
            XCTAssertEqual(try c.request("tagtypes reset artist title"), ["OK"])
            XCTAssertEqual(try c.request("tagtypes"), ["tagtype: Artist", "tagtype: Title", "OK"])
            XCTAssertEqual(try c.request("tagtypes reset nope"), ["ACK [2@0] {tagtypes} Unknown tag type"])
            XCTAssertEqual(try c.request("tagtypes"), ["OK"], "a failed reset leaves no tags, as in MPD 0.24")
        },
        "protocol": { _, c in
            XCTAssertEqual(try c.request("protocol available"), ["feature: hide_playlists_in_root", "OK"])
            XCTAssertEqual(try c.request("protocol"), ["OK"])
            XCTAssertEqual(try c.request("protocol enable hide_playlists_in_root"), ["OK"])
            XCTAssertEqual(try c.request("protocol"), ["feature: hide_playlists_in_root", "OK"])
            XCTAssertEqual(try c.request("protocol enable nope"), ["ACK [2@0] {protocol} Unknown protocol feature"])
            XCTAssertEqual(try c.request("protocol bogus"), ["ACK [2@0] {protocol} Unknown sub command"])
            XCTAssertEqual(try c.request("protocol clear"), ["OK"])
            XCTAssertEqual(try c.request("protocol"), ["OK"])
        },
        "unsubscribe": { _, c in
            XCTAssertEqual(try c.request("unsubscribe x"), ["ACK [50@0] {unsubscribe} not subscribed to this channel"])
        },
        "analysisstatus": { _, c in
            let status = try c.request("analysisstatus")
            XCTAssertEqual(status.map { $0.split(separator: ":").first.map(String.init) ?? "" }, ["state", "songs", "measured", "pending", "failed", "rate", "OK"])
        },
        "analyze": { _, c in
            XCTAssertEqual(try c.request("analyze nowhere"), ["ACK [50@0] {analyze} No such song or directory"])
            XCTAssertEqual(try c.request("analyze").last, "OK")
        },
        "loudness": { _, c in
            XCTAssertEqual(try c.request("loudness nowhere.flac"), ["ACK [50@0] {loudness} No such song"])
        },
        "urlhandlers": { _, c in XCTAssertEqual(try c.request("urlhandlers"), ["handler: http://", "handler: https://", "OK"]) },
    ]

    func testTableIsSortedAndUnique() {
        let names = CommandTable.standard.commands.map(\.name)
        XCTAssertEqual(names, names.sorted())
        XCTAssertEqual(Set(names).count, names.count)
    }

    func testListsAndProtocolWordsAreNotCommands() {
        for word in ["noidle", "command_list_begin", "command_list_ok_begin", "command_list_end"] {
            XCTAssertNil(CommandTable.standard.lookup(word))
        }
    }

    func testEveryCommandHasACheckAndItPasses() throws {
        let names = CommandTable.standard.commands.map(\.name)
        XCTAssertEqual(Set(Self.checks.keys), Set(names))
        let music = try Fixtures.library()
        for name in names {
            let server = try TestServer(musicDirectory: music) { $0.loudnessAnalysis = ["analysisstatus", "analyze", "loudness"].contains(name) }
            try Self.checks[name]?(server, try server.connect())
        }
    }

    func testCommandsListsExactlyTheTable() throws {
        let server = try TestServer(musicDirectory: try Fixtures.library()) { $0.loudnessAnalysis = true }
        let listed = try server.connect().request("commands").dropLast().map { String($0.dropFirst("command: ".count)) }
        // listneighbors is hidden without multicast (zeroconf_enabled "no"), as in MPD without a neighbor plugin.
        XCTAssertEqual(listed, CommandTable.standard.commands.map(\.name).filter { $0 != "listneighbors" })
    }
}
