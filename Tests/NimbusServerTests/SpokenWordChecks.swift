import NimbusHarness
import XCTest

/// Checks of the commands for spoken word (Nimbus's own): the sleep timer and podcasts. The
/// network side of podcasts is tested against a feed server in DaemonTests/PodcastTests.
extension CheckHelpers {
    static let spokenWord: [String: CommandTableTests.Check] = [
        "sleeptimer": { _, c in
            XCTAssertEqual(try c.request("sleeptimer 60"), ["OK"])
            XCTAssertTrue(try c.request("status").contains { $0 == "sleeptimer: 60" || $0 == "sleeptimer: 59" })
            XCTAssertEqual(try c.request("sleeptimer later"), ["ACK [2@0] {sleeptimer} Expected seconds (at most 604800), \"end\" or 0: \"later\""])
            XCTAssertEqual(try c.request("sleeptimer 0"), ["OK"])
            XCTAssertFalse(try c.request("status").contains { $0.hasPrefix("sleeptimer") })
        },
        "listpodcasts": { _, c in XCTAssertEqual(try c.request("listpodcasts"), ["OK"], "no subscriptions yet") },
        "podcastsubscribe": { _, c in
            XCTAssertEqual(try c.request("podcastsubscribe ftp://feeds.example/x"),
                ["ACK [52@0] {podcastsubscribe} not an http(s) address: ftp://feeds.example/x"])
            XCTAssertEqual(try c.request("listpodcasts"), ["OK"], "a refused subscription leaves nothing behind")
        },
        "podcastunsubscribe": { _, c in
            XCTAssertEqual(try c.request("podcastunsubscribe Nope"), ["ACK [50@0] {podcastunsubscribe} no such podcast: Nope"])
        },
        "podcastkeep": { _, c in
            XCTAssertEqual(try c.request("podcastkeep Nope 3"), ["ACK [50@0] {podcastkeep} no such podcast: Nope"])
            XCTAssertEqual(try c.request("podcastkeep Nope many"), ["ACK [2@0] {podcastkeep} Expected a number of episodes (0 to 1000): \"many\""])
            XCTAssertEqual(try c.request("podcastkeep Nope 3 forget"), ["ACK [50@0] {podcastkeep} no such podcast: Nope"])
        },
        "podcastrefresh": { _, c in
            XCTAssertEqual(try c.request("podcastrefresh"), ["OK"], "nothing to refresh")
            XCTAssertEqual(try c.request("podcastrefresh Nope"), ["ACK [50@0] {podcastrefresh} no such podcast: Nope"])
        },
    ]
}
