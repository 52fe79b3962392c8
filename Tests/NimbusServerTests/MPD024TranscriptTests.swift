import Foundation
import NimbusHarness
import XCTest

/// Replays what MPD 0.24.13 answered (Transcripts/mpd-0.24.13.txt: filters, searchcount,
/// queue sort/window/prio, consume oneshot, save modes, stored-playlist ranges,
/// searchplaylist, searchaddpl position, plchanges -1, 0.24 stickers, tagtypes and protocol,
/// URI errors, the priority reset on play, base and prio in expressions, playlist stickers,
/// moves relative to the current song) against a fresh server per group and wants the
/// same lines back.
final class MPD024TranscriptTests: XCTestCase {
    struct Exchange {
        var request: String
        var answer: [String]
    }

    struct Group {
        var name: String
        var exchanges: [Exchange]
    }

    static func groups() throws -> [Group] {
        let path = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Transcripts/mpd-0.24.13.txt").path
        let text = try String(contentsOfFile: path, encoding: .utf8)
        var groups: [Group] = []
        for line in text.split(separator: "\n", omittingEmptySubsequences: true).map(String.init) {
            if line.hasPrefix("## ") || line == "##" { continue }
            if line.hasPrefix("# ") {
                groups.append(Group(name: String(line.dropFirst(2)), exchanges: []))
            } else if line.hasPrefix(">> ") {
                groups[groups.count - 1].exchanges.append(Exchange(request: String(line.dropFirst(3)), answer: []))
            } else {
                let group = groups.count - 1
                groups[group].exchanges[groups[group].exchanges.count - 1].answer.append(line)
            }
        }
        return groups
    }

    func testTheTranscriptHasEveryGroup() throws {
        let names = try Self.groups().map(\.name)
        XCTAssertEqual(names.count, 17)
        XCTAssertTrue(names.contains("stickers 0.24"))
        XCTAssertGreaterThan(try Self.groups().map(\.exchanges.count).reduce(0, +), 200)
    }

    func testNimbusAnswersAsMPD024() throws {
        let music = try Fixtures.library()
        for group in try Self.groups() {
            let server = try TestServer(musicDirectory: music)
            let client = try server.connect()
            for exchange in group.exchanges {
                // The test server's output has a software mixer, MPD's null output had none.
                let answer = try client.request(exchange.request).filter {
                    !$0.hasPrefix("Last-Modified: ") && !$0.hasPrefix("Added: ") && !$0.hasPrefix("volume: ")
                }
                XCTAssertEqual(answer, exchange.answer, "\(group.name): \(exchange.request)")
            }
        }
    }
}
