import NimbusHarness
import XCTest

/// The command-table checks for the queue, player, options, outputs and stored playlists.
/// Each runs against a fresh in-process server on the fixture library with a paced null output.
enum QueueCommandChecks {
    typealias Check = CommandTableTests.Check

    static let dawn = "\"Alpha Band/First Light/01 - Dawn.flac\""
    static let dusk = "\"Alpha Band/First Light/03 - Dusk.wav\""

    /// `key: value` from a status-like response.
    static func value(_ key: String, in lines: [String]) -> String? {
        lines.first { $0.hasPrefix(key + ": ") }.map { String($0.dropFirst(key.count + 2)) }
    }

    static func status(_ c: LineClient, _ key: String) throws -> String? { value(key, in: try c.request("status")) }

    static func playlist(_ c: LineClient) throws -> [String] { try c.request("playlist").dropLast() }

    static func ok(_ c: LineClient, _ command: String) throws { XCTAssertEqual(try c.request(command), ["OK"], command) }

    static let queue: [String: Check] = [
        "add": { _, c in
            try ok(c, "add \"Alpha Band/First Light\"")
            try ok(c, "add untagged.wav 0")
            XCTAssertEqual(try playlist(c).first, "0:file: untagged.wav")
            XCTAssertEqual(try playlist(c).count, 4)
        },
        "addid": { _, c in
            XCTAssertEqual(try c.request("addid untagged.wav"), ["Id: 1", "OK"])
            XCTAssertEqual(try c.request("addid Beta"), ["ACK [50@0] {addid} No such song"])
        },
        "addtagid": { _, c in
            XCTAssertEqual(try c.request("addid http://127.0.0.1:9/s.mp3"), ["Id: 1", "OK"])
            try ok(c, "addtagid 1 title Live")
            XCTAssertTrue(try c.request("playlistid 1").contains("Title: Live"))
        },
        "cleartagid": { _, c in
            _ = try c.request("addid http://127.0.0.1:9/s.mp3")
            try ok(c, "addtagid 1 title Live")
            try ok(c, "cleartagid 1")
            XCTAssertEqual(try c.request("playlistid 1"), ["file: http://127.0.0.1:9/s.mp3", "Pos: 0", "Id: 1", "OK"])
        },
        "clear": { _, c in
            try ok(c, "add Beta")
            try ok(c, "clear")
            XCTAssertEqual(try status(c, "playlistlength"), "0")
        },
        "delete": { _, c in
            try ok(c, "add Beta")
            try ok(c, "delete 0:2")
            XCTAssertEqual(try playlist(c), ["0:file: Beta/Beta Sides/01 - Gamma Ray.mp3"])
        },
        "deleteid": { _, c in
            try ok(c, "add untagged.wav")
            try ok(c, "deleteid 1")
            XCTAssertEqual(try c.request("deleteid 1"), ["ACK [50@0] {deleteid} No such song"])
        },
        "move": { _, c in
            try ok(c, "add Beta")
            try ok(c, "move 0 2")
            XCTAssertEqual(try playlist(c).last, "2:file: Beta/Beta Sides/02 - Old Tag.mp3")
        },
        "moveid": { _, c in
            try ok(c, "add Beta")
            try ok(c, "moveid 3 0")
            XCTAssertEqual(try playlist(c).first, "0:file: Beta/Beta Sides/01 - Gamma Ray.mp3")
        },
        "swap": { _, c in
            try ok(c, "add Beta")
            try ok(c, "swap 0 2")
            XCTAssertEqual(try playlist(c).first, "0:file: Beta/Beta Sides/01 - Gamma Ray.mp3")
        },
        "swapid": { _, c in
            try ok(c, "add Beta")
            try ok(c, "swapid 1 2")
            XCTAssertEqual(try playlist(c).first, "0:file: Beta/Beta Sides/03 - Only V1.mp3")
        },
        "shuffle": { _, c in
            try ok(c, "add Beta")
            try ok(c, "add \"Alpha Band\"")
            try ok(c, "shuffle")
            XCTAssertEqual(Set(try playlist(c).map { $0.split(separator: ":", maxSplits: 1)[1] }).count, 8)
            XCTAssertEqual(try status(c, "playlist"), "4")
        },
        "prio": { _, c in
            try ok(c, "add Beta")
            try ok(c, "prio 7 1:3")
            XCTAssertEqual(try c.request("playlistinfo 2").suffix(2), ["Prio: 7", "OK"])
        },
        "prioid": { _, c in
            try ok(c, "add Beta")
            try ok(c, "prioid 200 1 3")
            XCTAssertEqual(try c.request("playlistid 3").suffix(2), ["Prio: 200", "OK"])
        },
        "rangeid": { _, c in
            try ok(c, "add \(dawn)")
            try ok(c, "rangeid 1 0.5:1.25")
            let info = try c.request("playlistid 1")
            XCTAssertEqual(info[1], "Range: 0.500-1.250")
            XCTAssertTrue(info.contains("duration: 0.750"))
        },
        "playlist": { _, c in
            try ok(c, "add untagged.wav")
            XCTAssertEqual(try c.request("playlist"), ["0:file: untagged.wav", "OK"])
        },
        "playlistinfo": { _, c in
            try ok(c, "add \(dusk)")
            XCTAssertEqual(try c.request("playlistinfo 0").suffix(3), ["Pos: 0", "Id: 1", "OK"])
            XCTAssertEqual(try c.request("playlistinfo 1:"), ["OK"])
            XCTAssertEqual(try c.request("playlistinfo 2"), ["ACK [2@0] {playlistinfo} Bad song index"])
        },
        "playlistid": { _, c in
            try ok(c, "add \(dusk)")
            XCTAssertEqual(try c.request("playlistid 1").first, "file: Alpha Band/First Light/03 - Dusk.wav")
            XCTAssertEqual(try c.request("playlistid 2"), ["ACK [50@0] {playlistid} No such song"])
        },
        "playlistfind": { _, c in
            try ok(c, "add \"Alpha Band\"")
            XCTAssertEqual(try c.request("playlistfind title Dusk").first, "file: Alpha Band/First Light/03 - Dusk.wav")
            XCTAssertEqual(try c.request("playlistfind title dusk"), ["OK"])
        },
        "playlistsearch": { _, c in
            try ok(c, "add \"Alpha Band\"")
            XCTAssertTrue(try c.request("playlistsearch title ЁЛКА").contains("Pos: 3"))
        },
        "plchanges": { _, c in
            try ok(c, "add Beta")
            try ok(c, "delete 1")
            let changed = try c.request("plchanges 2")
            XCTAssertEqual(changed.first, "file: Beta/Beta Sides/01 - Gamma Ray.mp3")
            XCTAssertEqual(changed.filter { $0.hasPrefix("Pos: ") }, ["Pos: 1"])
        },
        "plchangesposid": { _, c in
            try ok(c, "add Beta")
            try ok(c, "swap 0 2")
            XCTAssertEqual(try c.request("plchangesposid 2"), ["cpos: 0", "Id: 3", "cpos: 2", "Id: 1", "OK"])
            XCTAssertEqual(try c.request("plchangesposid 3"), ["OK"])
        },
        "currentsong": { _, c in
            XCTAssertEqual(try c.request("currentsong"), ["OK"])
            try ok(c, "add \(dawn)")
            try ok(c, "play")
            XCTAssertEqual(try c.request("currentsong").first, "file: Alpha Band/First Light/01 - Dawn.flac")
        },
        "findadd": { _, c in
            try ok(c, "findadd artist Beta")
            XCTAssertEqual(try playlist(c).count, 3)
        },
        "searchadd": { _, c in
            try ok(c, "searchadd title DUSK")
            XCTAssertEqual(try playlist(c), ["0:file: Alpha Band/First Light/03 - Dusk.wav"])
        },
    ]

    static let player: [String: Check] = [
        "play": { _, c in
            try ok(c, "add \(dawn)")
            try ok(c, "play 0")
            XCTAssertEqual(try status(c, "state"), "play")
            XCTAssertEqual(try status(c, "songid"), "1")
        },
        "playid": { _, c in
            try ok(c, "add Beta")
            try ok(c, "playid 2")
            XCTAssertEqual(try status(c, "song"), "1")
            XCTAssertEqual(try status(c, "nextsong"), "2")
        },
        "pause": { _, c in
            try ok(c, "add \(dawn)")
            try ok(c, "play")
            try ok(c, "pause")
            XCTAssertEqual(try status(c, "state"), "pause")
            try ok(c, "pause 0")
            XCTAssertEqual(try status(c, "state"), "play")
        },
        "stop": { _, c in
            try ok(c, "add \(dawn)")
            try ok(c, "play")
            try ok(c, "stop")
            XCTAssertEqual(try status(c, "state"), "stop")
            XCTAssertEqual(try status(c, "song"), "0")
        },
        "next": { _, c in
            XCTAssertEqual(try c.request("next"), ["ACK [55@0] {next} Not playing"])
            try ok(c, "add Beta")
            try ok(c, "play 0")
            try ok(c, "next")
            XCTAssertEqual(try status(c, "song"), "1")
        },
        "previous": { _, c in
            try ok(c, "add Beta")
            try ok(c, "play 1")
            try ok(c, "previous")
            XCTAssertEqual(try status(c, "song"), "0")
        },
        "seek": { _, c in
            try ok(c, "add \(dawn)")
            try ok(c, "seek 0 2")
            let elapsed = Double(try status(c, "elapsed") ?? "") ?? 0
            XCTAssertGreaterThanOrEqual(elapsed, 2)
        },
        "seekid": { _, c in
            try ok(c, "add \(dawn)")
            try ok(c, "seekid 1 1.5")
            XCTAssertGreaterThanOrEqual(Double(try status(c, "elapsed") ?? "") ?? 0, 1.5)
        },
        "seekcur": { _, c in
            XCTAssertEqual(try c.request("seekcur 1"), ["ACK [55@0] {seekcur} Not playing"])
            try ok(c, "add \(dawn)")
            try ok(c, "play")
            try ok(c, "pause 1")
            try ok(c, "seekcur +2")
            XCTAssertGreaterThanOrEqual(Double(try status(c, "elapsed") ?? "") ?? 0, 2)
        },
        "clearerror": { _, c in
            try ok(c, "add http://127.0.0.1:9/unreachable.mp3")
            try ok(c, "play")
            XCTAssertTrue(waitUntil { (try? status(c, "error")) != nil })
            try ok(c, "clearerror")
            XCTAssertNil(try status(c, "error"))
        },
        "random": { _, c in
            try ok(c, "random 1")
            XCTAssertEqual(try status(c, "random"), "1")
        },
        "repeat": { _, c in
            try ok(c, "repeat 1")
            XCTAssertEqual(try status(c, "repeat"), "1")
        },
        "single": { _, c in
            try ok(c, "single oneshot")
            XCTAssertEqual(try status(c, "single"), "oneshot")
        },
        "consume": { _, c in
            try ok(c, "consume 1")
            XCTAssertEqual(try status(c, "consume"), "1")
        },
        "crossfade": { _, c in
            try ok(c, "crossfade 5")
            XCTAssertEqual(try status(c, "xfade"), "5")
        },
        "mixrampdb": { _, c in
            try ok(c, "mixrampdb -10.5")
            XCTAssertEqual(try status(c, "mixrampdb"), "-10.5")
        },
        "mixrampdelay": { _, c in
            try ok(c, "mixrampdelay 2")
            XCTAssertEqual(try status(c, "mixrampdelay"), "2")
        },
        "replay_gain_mode": { _, c in
            try ok(c, "replay_gain_mode track")
            XCTAssertEqual(try c.request("replay_gain_status"), ["replay_gain_mode: track", "OK"])
        },
        "replay_gain_status": { _, c in
            XCTAssertEqual(try c.request("replay_gain_status"), ["replay_gain_mode: off", "OK"])
        },
        "setvol": { _, c in
            try ok(c, "setvol 40")
            XCTAssertEqual(try status(c, "volume"), "40")
        },
        "volume": { _, c in
            try ok(c, "volume -15")
            XCTAssertEqual(try c.request("getvol"), ["volume: 85", "OK"])
        },
        "getvol": { _, c in XCTAssertEqual(try c.request("getvol"), ["volume: 100", "OK"]) },
        "outputs": { _, c in
            XCTAssertEqual(try c.request("outputs"), ["outputid: 0", "outputname: silence", "plugin: null", "outputenabled: 1", "OK"])
        },
        "disableoutput": { _, c in
            try ok(c, "disableoutput 0")
            XCTAssertEqual(value("outputenabled", in: try c.request("outputs")), "0")
            XCTAssertEqual(try c.request("getvol"), ["volume: 100", "OK"], "as in MPD, a disabled output's mixer still counts")
        },
        "enableoutput": { _, c in
            try ok(c, "disableoutput 0")
            try ok(c, "enableoutput 0")
            XCTAssertEqual(value("outputenabled", in: try c.request("outputs")), "1")
        },
        "toggleoutput": { _, c in
            try ok(c, "toggleoutput 0")
            XCTAssertEqual(value("outputenabled", in: try c.request("outputs")), "0")
            XCTAssertEqual(try c.request("toggleoutput 1"), ["ACK [50@0] {toggleoutput} No such audio output"])
        },
        "outputset": { _, c in
            XCTAssertEqual(try c.request("outputset 0 dop 1"), ["ACK [2@0] {outputset} Unsupported attribute"])
        },
    ]

    static let storedPlaylists: [String: Check] = [
        "save": { _, c in
            try ok(c, "add Beta")
            try ok(c, "save mine")
            XCTAssertEqual(try c.request("listplaylist mine").count, 4)
            XCTAssertEqual(try c.request("save mine"), ["ACK [56@0] {save} Playlist already exists"])
        },
        "load": { _, c in
            try ok(c, "playlistadd mine Beta")
            try ok(c, "load mine 1:")
            XCTAssertEqual(try playlist(c).count, 2)
        },
        "listplaylists": { _, c in
            try ok(c, "playlistadd mine untagged.wav")
            XCTAssertEqual(try c.request("listplaylists").first, "playlist: mine")
        },
        "listplaylist": { _, c in
            try ok(c, "playlistadd mine http://127.0.0.1:9/x.mp3")
            XCTAssertEqual(try c.request("listplaylist mine"), ["file: http://127.0.0.1:9/x.mp3", "OK"])
        },
        "listplaylistinfo": { _, c in
            try ok(c, "playlistadd mine \(dusk)")
            XCTAssertTrue(try c.request("listplaylistinfo mine").contains("Title: Dusk"))
        },
        "playlistadd": { _, c in
            try ok(c, "playlistadd mine Beta")
            try ok(c, "playlistadd mine untagged.wav 1")
            XCTAssertEqual(try c.request("listplaylist mine")[1], "file: untagged.wav")
        },
        "playlistclear": { _, c in
            try ok(c, "playlistadd mine Beta")
            try ok(c, "playlistclear mine")
            XCTAssertEqual(try c.request("listplaylist mine"), ["OK"])
        },
        "playlistdelete": { _, c in
            try ok(c, "playlistadd mine Beta")
            try ok(c, "playlistdelete mine 0")
            XCTAssertEqual(try c.request("listplaylist mine").count, 3)
        },
        "playlistmove": { _, c in
            try ok(c, "playlistadd mine Beta")
            try ok(c, "playlistmove mine 0 2")
            XCTAssertEqual(try c.request("listplaylist mine")[2], "file: Beta/Beta Sides/02 - Old Tag.mp3")
        },
        "rename": { _, c in
            try ok(c, "playlistadd mine Beta")
            try ok(c, "rename mine yours")
            XCTAssertEqual(try c.request("listplaylist mine"), ["ACK [50@0] {listplaylist} No such playlist"])
        },
        "rm": { _, c in
            try ok(c, "playlistadd mine Beta")
            try ok(c, "rm mine")
            XCTAssertEqual(try c.request("rm mine"), ["ACK [50@0] {rm} No such playlist"])
        },
        "playlistlength": { _, c in
            try ok(c, "playlistadd mine Beta")
            XCTAssertEqual(try c.request("playlistlength mine"), ["songs: 3", "playtime: 6", "OK"])
            XCTAssertEqual(try c.request("playlistlength nope"), ["ACK [50@0] {playlistlength} No such playlist"])
        },
        "searchplaylist": { _, c in
            try ok(c, "playlistadd mine Beta")
            let found = try c.request("searchplaylist mine \"(title starts_with 'only')\"")
            XCTAssertEqual(found.filter { $0.hasPrefix("file: ") || $0.hasPrefix("Pos: ") || $0 == "OK" },
                           ["file: Beta/Beta Sides/03 - Only V1.mp3", "Pos: 1", "OK"])
            XCTAssertEqual(try c.request("searchplaylist mine \"(title == 'x')\" window 0:1"), ["OK"])
            XCTAssertEqual(
                try c.request("searchplaylist mine \"(title == 'x')\" 0:1"),
                ["ACK [2@0] {searchplaylist} Incorrect number of filter arguments"])
            XCTAssertEqual(try c.request("searchplaylist nope \"(title == 'x')\""), ["ACK [50@0] {searchplaylist} No such playlist"])
        },
        "searchaddpl": { _, c in
            try ok(c, "searchaddpl found artist beta")
            XCTAssertEqual(try c.request("listplaylist found").count, 4)
        },
    ]

    static let rest: [String: Check] = [
        "sticker": { _, c in
            XCTAssertEqual(try c.request("sticker set song \(dusk) rating 5"), ["OK"])
            XCTAssertEqual(try c.request("sticker get song \(dusk) rating"), ["sticker: rating=5", "OK"])
            XCTAssertEqual(
                try c.request("sticker find song \"Alpha Band\" rating = 5"),
                ["file: Alpha Band/First Light/03 - Dusk.wav", "sticker: rating=5", "OK"])
            XCTAssertEqual(try c.request("sticker get song nosuch.wav rating"), ["ACK [50@0] {sticker} No such song"])
        },
        "stickertypes": { _, c in
            let types = try c.request("stickertypes")
            XCTAssertEqual(Array(types.prefix(4)), ["stickertype: filter", "stickertype: playlist", "stickertype: song", "stickertype: Artist"])
            XCTAssertEqual(types.last, "OK")
        },
        "stickernames": { _, c in
            try ok(c, "sticker set song \(dusk) rating 5")
            try ok(c, "sticker set Album \"Beta Sides\" loved 1")
            XCTAssertEqual(try c.request("stickernames"), ["name: loved", "name: rating", "OK"])
        },
        "stickernamestypes": { _, c in
            try ok(c, "sticker set song \(dusk) rating 5")
            try ok(c, "sticker set Album \"Beta Sides\" rating 1")
            XCTAssertEqual(try c.request("stickernamestypes"), ["name: rating", "type: Album", "name: rating", "type: song", "OK"])
            XCTAssertEqual(try c.request("stickernamestypes song"), ["name: rating", "type: song", "OK"])
        },
        "partition": { _, c in
            try ok(c, "newpartition two")
            try ok(c, "partition two")
            XCTAssertEqual(try status(c, "partition"), "two")
            XCTAssertEqual(try c.request("partition none"), ["ACK [50@0] {partition} partition does not exist"])
        },
        "listpartitions": { _, c in
            try ok(c, "newpartition two")
            XCTAssertEqual(try c.request("listpartitions"), ["partition: default", "partition: two", "OK"])
        },
        "newpartition": { _, c in
            try ok(c, "newpartition two")
            XCTAssertEqual(try c.request("newpartition two"), ["ACK [56@0] {newpartition} name already exists"])
            XCTAssertEqual(try c.request("newpartition \"no way\""), ["ACK [2@0] {newpartition} bad name"])
        },
        "delpartition": { _, c in
            try ok(c, "newpartition two")
            try ok(c, "delpartition two")
            XCTAssertEqual(try c.request("listpartitions"), ["partition: default", "OK"])
            XCTAssertEqual(try c.request("delpartition default"), ["ACK [5@0] {delpartition} cannot delete the default partition"])
        },
        "moveoutput": { _, c in
            try ok(c, "newpartition two")
            try ok(c, "partition two")
            try ok(c, "moveoutput silence")
            XCTAssertEqual(try c.request("outputs"), ["outputid: 0", "outputname: silence", "plugin: null", "outputenabled: 1", "OK"])
            try ok(c, "partition default")
            XCTAssertEqual(try c.request("outputs"), ["outputid: 0", "outputname: silence", "plugin: dummy", "outputenabled: 0", "OK"])
        },
        "listmounts": { _, c in XCTAssertEqual(try c.request("listmounts"), ["mount: ", "OK"]) },
        "mount": { _, c in
            XCTAssertEqual(try c.request("mount \"\" x"), ["ACK [2@0] {mount} Bad mount point"])
            XCTAssertEqual(try c.request("mount dav http://127.0.0.1:9/music/"), ["OK"])
            XCTAssertEqual(try c.request("mount dav http://127.0.0.1:9/other/"), ["ACK [2@0] {mount} Mount point busy"])
            XCTAssertEqual(try c.request("mount again http://127.0.0.1:9/music/"), ["ACK [2@0] {mount} This storage is already mounted"])
            XCTAssertEqual(
                try c.request("mount share nfs://nas/music"),
                ["ACK [2@0] {mount} No nfs:// storage in Nimbus: mount WebDAV (http://, https://) or a cloud account (cloud:NAME)"])
            XCTAssertEqual(try c.request("mount odd gopher://x/"), ["ACK [2@0] {mount} Unrecognized storage URI"])
            XCTAssertEqual(try c.request("listmounts"), ["mount: ", "mount: dav", "storage: http://127.0.0.1:9/music/", "OK"])
        },
        "unmount": { _, c in XCTAssertEqual(try c.request("unmount music"), ["ACK [2@0] {unmount} Not a mount point"]) },
        "listneighbors": { _, c in
            XCTAssertEqual(try c.request("listneighbors"), ["ACK [5@0] {listneighbors} No neighbor plugin configured"])
        },
    ]
}
