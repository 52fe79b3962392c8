import NimbusSupport
import Synchronization
import XCTest

final class LoggerTests: XCTestCase {
    func testLevelsFilterAndDomainsPrefix() {
        let lines = Mutex<[String]>([])
        let logger = Logger(level: .warning, domain: "test", sink: { line in lines.withLock { $0.append(line) } })
        logger.info("hidden")
        logger.warning("shown")
        logger.domain("client").error("also shown")
        XCTAssertEqual(lines.withLock { $0 }, ["test: shown", "client: also shown"])
    }

    func testMPDLogLevelNames() {
        XCTAssertEqual(LogLevel(configName: "default"), .notice)
        XCTAssertEqual(LogLevel(configName: "secure"), .info)
        XCTAssertEqual(LogLevel(configName: "verbose"), .debug)
        XCTAssertEqual(LogLevel(configName: "error"), .error)
        XCTAssertNil(LogLevel(configName: "loud"))
    }
}
