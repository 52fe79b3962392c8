import NimbusHarness
import XCTest

/// Command-table checks of the queue: adding, deleting, moving, ranges, priorities, queue listings.
extension CheckHelpers {
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
}
