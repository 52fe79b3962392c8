import NimbusHarness
import XCTest

final class LimitTests: XCTestCase {
    func testMaxConnectionsDropsExtraConnectionsWithoutGreeting() throws {
        let server = try TestServer { $0.maxConnections = 2 }
        let first = try server.connect()
        let second = try server.connect()
        let third = try LineClient(.tcp(host: "127.0.0.1", port: server.port))
        XCTAssertEqual(try third.readUntilClosed(), "")
        XCTAssertEqual(try first.request("ping"), ["OK"])
        first.send_close()
        XCTAssertTrue(waitUntil { server.clientCount == 1 })
        XCTAssertNotNil(try server.connect())
        XCTAssertEqual(try second.request("ping"), ["OK"])
    }

    func testSilentClientIsDroppedAfterTheTimeout() throws {
        let server = try TestServer { $0.connectionTimeout = 1 }
        let client = try server.connect()
        let start = Date()
        XCTAssertEqual(try client.readUntilClosed(), "")
        XCTAssertGreaterThanOrEqual(Date().timeIntervalSince(start), 0.9)
    }

    func testActivityPostponesTheTimeout() throws {
        let server = try TestServer { $0.connectionTimeout = 1 }
        let client = try server.connect()
        for _ in 0..<4 {
            XCTAssertTrue(try client.isQuiet(for: 0.4))
            XCTAssertEqual(try client.request("ping"), ["OK"])
        }
    }

    func testResponseBeyondTheOutputBufferClosesTheConnection() throws {
        let server = try TestServer { $0.maxOutputBufferSize = 1024 }
        let client = try server.connect()
        // 30 tag lines of ~20 bytes per tagtypes: 40 of them fit in 16 KiB + 1 KiB, 900 do not.
        let fits = String(repeating: "tagtypes\n", count: 20)
        try client.send(fits)
        for _ in 0..<20 { XCTAssertEqual(try client.readResponse().last, "OK") }
        XCTAssertEqual(try client.sendAndReadUntilClosed(String(repeating: "tagtypes\n", count: 900)), "")
    }

    func testBinaryLimitBounds() throws {
        let server = try TestServer { $0.maxOutputBufferSize = 1024 }
        let client = try server.connect()
        XCTAssertEqual(try client.request("binarylimit 63"), ["ACK [2@0] {binarylimit} Value too small"])
        XCTAssertEqual(try client.request("binarylimit 64"), ["OK"])
        XCTAssertEqual(try client.request("binarylimit 13312"), ["OK"])
        XCTAssertEqual(try client.request("binarylimit 13313"), ["ACK [2@0] {binarylimit} Number too large: 13313"])
        XCTAssertEqual(try client.request("binarylimit -1"), ["ACK [2@0] {binarylimit} Number too large: -1"])
        XCTAssertEqual(try client.request("binarylimit 64x"), ["ACK [2@0] {binarylimit} Integer expected: 64x"])
    }
}

extension LineClient {
    func send_close() { shutdown(fd, Int32(SHUT_RDWR)) }
}
