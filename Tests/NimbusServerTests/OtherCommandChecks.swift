import NimbusHarness
import XCTest

/// Command-table checks of stickers, partitions, mounts and neighbors.
extension CheckHelpers {
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
                try c.request("mount share udisks://sdb1"),
                [
                    "ACK [2@0] {mount} No udisks:// storage in Nimbus: mount SMB (smb://), NFS (nfs://), SFTP (sftp://), FTP (ftp://, ftps://), WebDAV (http://, https://) or a cloud account (cloud:NAME)"
                ])
            XCTAssertEqual(
                try c.request("mount nas smb://127.0.0.1:9/music"), ["ACK [52@0] {mount} smb://127.0.0.1:9/music: 127.0.0.1:9: Connection refused"],
                "the share is asked before mount answers")
            XCTAssertEqual(try c.request("mount odd gopher://x/"), ["ACK [2@0] {mount} Unrecognized storage URI"])
            XCTAssertEqual(try c.request("listmounts"), ["mount: ", "mount: dav", "storage: http://127.0.0.1:9/music/", "OK"])
        },
        "unmount": { _, c in XCTAssertEqual(try c.request("unmount music"), ["ACK [2@0] {unmount} Not a mount point"]) },
        "listneighbors": { _, c in
            XCTAssertEqual(try c.request("listneighbors"), ["ACK [5@0] {listneighbors} No neighbor plugin configured"])
        },
    ]
}
