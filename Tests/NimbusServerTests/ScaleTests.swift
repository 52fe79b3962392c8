import NimbusHarness
import XCTest

/// Idle clients cost descriptors, not threads.
final class ScaleTests: XCTestCase {
    func testAThousandIdleClientsEachWakeOnTheirEvent() throws {
        let server = try TestServer { $0.maxConnections = 1100 }
        // Other tests in this process leave their own threads (fetchers, decoders): count ours.
        let threadsBefore = Self.threadCount()
        var clients: [LineClient] = []
        for index in 0..<1000 {
            let client = try server.connect()
            try client.send(index % 2 == 0 ? "idle player\n" : "idle mixer\n")
            clients.append(client)
        }
        XCTAssertEqual(server.clientCount, 1000)
        XCTAssertLessThan(Self.threadCount() - threadsBefore, 10, "no thread per connection")
        try server.emit(.player)
        for (index, client) in clients.enumerated() where index % 2 == 0 {
            XCTAssertEqual(try client.readResponse(), ["changed: player", "OK"])
        }
        try server.emit(.mixer)
        for (index, client) in clients.enumerated() where index % 2 == 1 {
            XCTAssertEqual(try client.readResponse(), ["changed: mixer", "OK"])
        }
    }

    private static func threadCount() -> Int {
        (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task").count) ?? 0
    }
}
