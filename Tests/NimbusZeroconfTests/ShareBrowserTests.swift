import NimbusZeroconf
import XCTest

/// Answers to the share browser's query, read back into `listneighbors` lines; mutated
/// answers (hostile datagrams) never crash the reader.
final class ShareBrowserTests: XCTestCase {
    private func answer() -> [UInt8] {
        DNSMessage.response(
            answers: [
                DNSRecord(name: "_smb._tcp.local", ttl: 120, unique: false, data: .ptr("Living Room NAS._smb._tcp.local")),
                DNSRecord(name: "_webdav._tcp.local", ttl: 120, unique: false, data: .ptr("Frame._webdav._tcp.local")),
                DNSRecord(name: "_http._tcp.local", ttl: 120, unique: false, data: .ptr("Printer._http._tcp.local")),
            ],
            additional: [
                DNSRecord(name: "Living Room NAS._smb._tcp.local", ttl: 120, unique: true, data: .srv(port: 445, target: "nas.local")),
                DNSRecord(name: "Frame._webdav._tcp.local", ttl: 120, unique: true, data: .srv(port: 8080, target: "frame.local")),
                DNSRecord(name: "Frame._webdav._tcp.local", ttl: 120, unique: true, data: .txt(["txtvers=1", "path=/dav"])),
                DNSRecord(name: "nas.local", ttl: 120, unique: true, data: .a([192, 168, 1, 20])),
                DNSRecord(name: "Printer._http._tcp.local", ttl: 120, unique: true, data: .srv(port: 80, target: "printer.local")),
            ])
    }

    func testAnswersBecomeNeighborsInMPDsForm() throws {
        let records = try XCTUnwrap(DNSResponse.records(answer()))
        XCTAssertEqual(records.count, 8)
        XCTAssertEqual(ShareBrowser.neighbors(records), [
            Neighbor(uri: "http://frame.local:8080/dav/", name: "Frame"),
            Neighbor(uri: "smb://192.168.1.20/", name: "Living Room NAS"),
        ], "the name keeps its case, the default port is left out, a printer is no share")
    }

    func testAQueryAsksForEveryShareService() {
        let query = DNSResponse.query(ShareBrowser.services.map(\.type), id: 7)
        XCTAssertEqual(DNSMessage.parseQuery(query)?.questions.map(\.name), ShareBrowser.services.map(\.type))
        XCTAssertNil(DNSResponse.records(query), "a query is not an answer")
    }

    /// Seeded mutations: bytes flipped, the datagram cut short, counts inflated.
    func testMutatedAnswersNeverCrash() {
        let valid = answer()
        var seed: UInt64 = 0x5EED
        func next() -> Int {
            seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int(truncatingIfNeeded: seed >> 33)
        }
        var parsed = 0
        for _ in 0..<3000 {
            var bytes = valid
            switch next() % 3 {
            case 0: for _ in 0...(next() % 8) { bytes[next() % bytes.count] = UInt8(truncatingIfNeeded: next()) }
            case 1: bytes = Array(bytes.prefix(next() % bytes.count))
            default: bytes[6 + 2 * (next() % 3)] = 0xFF
            }
            if let records = DNSResponse.records(bytes) {
                parsed += 1
                _ = ShareBrowser.neighbors(records)
            }
        }
        XCTAssertGreaterThan(parsed, 0, "some mutations still parse")
    }
}
