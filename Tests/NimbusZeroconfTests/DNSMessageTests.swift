import NimbusZeroconf
import XCTest

/// The mDNS wire format: questions read from real query shapes (compressed names, QU bit,
/// hostile pointers), and what each question is answered with.
final class DNSMessageTests: XCTestCase {
    private let records = ServiceRecords(instance: "Music Player @ box", host: "box", port: 6600, addresses: [[192, 168, 1, 20]])

    /// A query for _mpd._tcp.local PTR, then the instance's SRV through a compression pointer.
    private func query(unicast: Bool = false) -> [UInt8] {
        var bytes: [UInt8] = [0, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0]
        bytes += [4] + Array("_mpd".utf8) + [4] + Array("_tcp".utf8) + [5] + Array("local".utf8) + [0]
        bytes += [0, 12, unicast ? 0x80 : 0, 1]
        bytes += [18] + Array("Music Player @ box".utf8) + [0xC0, 12]
        bytes += [0, 33, 0, 1]
        return bytes
    }

    func testQuestionsWithCompressedNames() throws {
        let parsed = try XCTUnwrap(DNSMessage.parseQuery(query(unicast: true)))
        XCTAssertEqual(parsed.questions.map(\.name), ["_mpd._tcp.local", "music player @ box._mpd._tcp.local"])
        XCTAssertEqual(parsed.questions.map(\.type), [12, 33])
        XCTAssertEqual(parsed.questions.map(\.unicastResponse), [true, false])
    }

    func testHostileMessagesAreRefused() {
        XCTAssertNil(DNSMessage.parseQuery([0, 0, 0, 0, 0, 1]), "short header")
        var loop: [UInt8] = [0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0xC0, 12, 0, 12, 0, 1]
        XCTAssertNil(DNSMessage.parseQuery(loop), "a pointer to itself")
        loop = [0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 60, 65, 65]
        XCTAssertNil(DNSMessage.parseQuery(loop), "a label past the end")
        XCTAssertNil(DNSMessage.parseQuery([0, 0, 0x84, 0, 0, 0, 0, 1, 0, 0, 0, 0]), "a response, not a query")
    }

    func testBrowsingGetsThePointerWithEverythingNeededToConnect() throws {
        let parsed = try XCTUnwrap(DNSMessage.parseQuery(query()))
        let (answers, additional) = records.answers(to: [parsed.questions[0]])
        XCTAssertEqual(answers, [DNSRecord(name: "_mpd._tcp.local", ttl: 4500, unique: false, data: .ptr("Music Player @ box._mpd._tcp.local"))])
        XCTAssertEqual(additional.map(\.data), [.srv(port: 6600, target: "box.local"), .txt([]), .a([192, 168, 1, 20])])
        XCTAssertTrue(records.answers(to: [DNSQuestion(name: "_http._tcp.local", type: 12, unicastResponse: false)]).answers.isEmpty)
    }

    func testResponseEncoding() {
        let bytes = DNSMessage.response(answers: [DNSRecord(name: "box.local", ttl: 120, unique: true, data: .a([10, 0, 0, 7]))])
        XCTAssertEqual(Array(bytes[0..<12]), [0, 0, 0x84, 0, 0, 0, 0, 1, 0, 0, 0, 0])
        XCTAssertEqual(Array(bytes[12...]), [3] + Array("box".utf8) + [5] + Array("local".utf8) + [0, 0, 1, 0x80, 1, 0, 0, 0, 120, 0, 4, 10, 0, 0, 7])
    }
}
