import Foundation
import NimbusHarness
import NimbusOffline
import NimbusStorage
import NimbusSupport
import XCTest

/// The pins' own rules, without a network: persistence, configured pins, pause and resume,
/// songs that cannot be described, and a pins file that cannot be read.
final class OfflineDownloadsTests: XCTestCase {
    private func downloads(_ directory: TemporaryDirectory, configured: [Pin] = []) -> OfflineDownloads {
        OfflineDownloads(
            storage: LocalStorage(root: directory.path), budget: 1 << 30, cacheDirectory: directory.path,
            path: directory.file("offline"), transfers: 1, configured: configured, work: BlockingWork(name: "test-work", limit: 1),
            logger: Logger(level: .error) { _ in }, notify: {})
    }

    func testPinsPersistButConfiguredOnesComeFromTheConfig() throws {
        let directory = TemporaryDirectory("nimbus-pins")
        let first = downloads(directory, configured: [Pin(kind: .folder, name: "disk/A", configured: true)])
        XCTAssertTrue(first.add(Pin(kind: .playlist, name: "mix")))
        XCTAssertFalse(first.add(Pin(kind: .playlist, name: "mix")), "pinned once")
        XCTAssertThrowsError(try first.remove(Pin.ID(playlist: false, name: "disk/A"))) { error in
            XCTAssertEqual((error as? OfflineError)?.kind, .configured)
        }
        try first.setPaused(true, Pin.ID(playlist: true, name: "mix"))
        first.stop()
        let again = downloads(directory)
        XCTAssertEqual(again.pins.map(\.name), ["mix"], "only run-time pins are written")
        XCTAssertEqual(again.pins.first?.paused, true)
        XCTAssertThrowsError(try again.remove(Pin.ID(playlist: false, name: "mix"))) { error in
            XCTAssertEqual((error as? OfflineError)?.kind, .noSuchPin, "a playlist pin is not a folder pin")
        }
        try again.remove(Pin.ID(playlist: true, name: "mix"))
        XCTAssertTrue(downloads(directory).pins.isEmpty)
    }

    func testSongsOfPausedPinsWaitAndSongsNoStorageKnowsFail() throws {
        let directory = TemporaryDirectory("nimbus-pins")
        let offline = downloads(directory)
        let id = Pin.ID(playlist: false, name: "disk/A")
        offline.add(Pin(kind: .folder, name: "disk/A", paused: true))
        offline.resync { $0.id == id ? ["disk/A/1.flac", "disk/A/2.flac"] : [] }
        XCTAssertEqual(try offline.songReports(id).map(\.state), [.paused, .paused])
        try offline.setPaused(false, nil)
        // A local storage has nothing to download: the songs fail with a reason, not silently.
        XCTAssertTrue(waitUntil(timeout: 5) { (try? offline.songReports(id))?.allSatisfy { $0.state == .failed } == true })
        XCTAssertEqual(try offline.songReports(id).first?.message, "not found on its cloud account")
        XCTAssertEqual(offline.pinReports().first?.state, .failed)
        offline.resync { $0.id == id ? ["disk/A/2.flac"] : [] }
        XCTAssertEqual(try offline.songReports(id).map(\.uri), ["disk/A/2.flac"], "a song the folder lost is let go")
        offline.stop()
    }

    func testAPinsFileThatCannotBeReadIsKeptAside() throws {
        let directory = TemporaryDirectory("nimbus-pins")
        try Data("{ not json".utf8).write(to: URL(fileURLWithPath: directory.file("offline")))
        XCTAssertTrue(downloads(directory).pins.isEmpty)
        XCTAssertEqual(try String(contentsOfFile: directory.file("offline.corrupt"), encoding: .utf8), "{ not json")
    }
}
