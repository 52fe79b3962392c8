import NimbusHarness
import XCTest

/// Command-table checks of stored playlists.
extension CheckHelpers {
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
}
