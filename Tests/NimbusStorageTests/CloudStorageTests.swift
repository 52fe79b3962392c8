import Foundation
import NimbusDecoder
import NimbusInput
import NimbusStorage
import NimbusSupport
import NimbusHarness
import XCTest

/// A WebDAV account through `CloudStorage` and the range cache, in process, so the bytes a
/// seek costs can be counted exactly.
final class CloudStorageTests: XCTestCase {
    private func share() throws -> TemporaryDirectory {
        let share = TemporaryDirectory("nimbus-share")
        try AudioFixtures.writeSineWAV(to: share.file("long.wav"), frames: 44_100 * 60, frequency: 440)
        try runTool("flac", ["-s", "-f", "-o", share.file("long.flac"), share.file("long.wav")])
        try FileManager.default.removeItem(atPath: share.file("long.wav"))
        return share
    }

    private func storage(_ server: WebDAVServer, cache: TemporaryDirectory) -> CloudStorage {
        let accounts = CloudAccounts(
            accounts: [], cache: RangeCache(directory: cache.file("ranges"), budget: 1 << 30, logger: .silent),
            stateDirectory: cache.file("accounts"), logger: .silent)
        return accounts.webDAV(url: server.url, name: "dav")
    }

    func testASeekIntoAnUncachedRegionFetchesAtMostTwoBlocks() throws {
        try XCTSkipUnless(WebDAVServer.available, "nginx with dav-ext is not installed (scripts/install-deps)")
        let files = try share()
        let server = try WebDAVServer(root: files.path, authenticated: false)
        let cache = TemporaryDirectory("nimbus-cache")
        let storage = storage(server, cache: cache)
        XCTAssertEqual(try storage.list("") { _ in }.map(\.name), ["long.flac"])
        let stream = try storage.open("long.flac", purpose: .playing)
        let decoder = try DecoderRegistry.standard.openDecoder(for: "long.flac", stream: stream)
        var buffer = [UInt8](repeating: 0, count: 16384)
        _ = try buffer.withUnsafeMutableBytes { try decoder.decode(into: $0) }
        let counters = storage.cache.counters
        let before = counters.received(account: "dav")
        try decoder.seek(toFrame: 44_100 * 40)
        _ = try buffer.withUnsafeMutableBytes { try decoder.decode(into: $0) }
        let seek = counters.received(account: "dav") - before
        XCTAssertGreaterThan(seek, 0)
        XCTAssertLessThanOrEqual(seek, 2 * 65536, "one seek, at most two blocks")
    }

    func testListingFollowsTheServerAndReadsAreExact() throws {
        try XCTSkipUnless(WebDAVServer.available, "nginx with dav-ext is not installed (scripts/install-deps)")
        let root = TemporaryDirectory("nimbus-share")
        try FileManager.default.createDirectory(atPath: root.file("Ёлка & co #1/100% live"), withIntermediateDirectories: true)
        let bytes = (0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }
        try Data(bytes).write(to: URL(fileURLWithPath: root.file("Ёлка & co #1/100% live/track one.flac")))
        let server = try WebDAVServer(root: root.path)
        let cache = TemporaryDirectory("nimbus-cache")
        let accounts = CloudAccounts(
            accounts: [
                .init(
                    name: "dav", type: "webdav", root: "/",
                    settings: ["url": server.url, "user": server.user, "password_file": cache.write("pw", server.password)])
            ], cache: RangeCache(directory: cache.file("ranges"), budget: 1 << 30, logger: .silent),
            stateDirectory: cache.file("accounts"), logger: .silent)
        let storage = try accounts.storage("dav")
        XCTAssertEqual(try storage.list("") { _ in }.map(\.name), ["Ёлка & co #1"])
        let files = try storage.list("Ёлка & co #1/100% live") { _ in }
        XCTAssertEqual(files.map(\.name), ["track one.flac"])
        XCTAssertEqual(files.first?.size, 300_000)
        let stream = try storage.open("Ёлка & co #1/100% live/track one.flac", purpose: .indexing)
        XCTAssertEqual(try stream.read(at: 123_456, count: 1000), Array(bytes[123_456..<124_456]))
        XCTAssertEqual(try stream.read(at: 299_990, count: 100), Array(bytes[299_990...]))
    }
}
