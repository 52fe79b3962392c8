import Foundation
import NimbusHarness
import XCTest

/// The binary `make deb` packages (release, Swift runtime and Foundation linked in) must run
/// on a box without the toolchain: its dynamic section names no toolchain folder and every
/// library it loads is Debian's. `make test` builds it first (NIMBUS_REQUIRE_STATIC=1), so a
/// change that would break the package fails here, not on someone's box.
final class StaticBinaryTests: XCTestCase {
    func testTheReleaseBinaryNeedsNoToolchain() throws {
        let binary = Fixtures.repositoryRoot + "/.build/static/release/nimbusd"
        guard FileManager.default.isExecutableFile(atPath: binary) else {
            if ProcessInfo.processInfo.environment["NIMBUS_REQUIRE_STATIC"] == "1" { return XCTFail("\(binary) was not built") }
            throw XCTSkip("no static release build (make test builds it)")
        }
        let dynamic = try runTool("readelf", ["-d", binary])
        let paths = dynamic.split(separator: "\n").filter { $0.contains("RUNPATH") || $0.contains("RPATH") }
        XCTAssertTrue(paths.allSatisfy { !$0.lowercased().contains("swift") && !$0.contains("/opt/") }, "a RUNPATH into the toolchain: \(paths)")
        let needed = dynamic.split(separator: "\n").filter { $0.contains("(NEEDED)") }
        XCTAssertFalse(needed.contains { $0.contains("libswift") || $0.contains("libFoundation") || $0.contains("libdispatch") }, "\(needed)")
        let loaded = try runTool("ldd", [binary]).split(separator: "\n")
        for line in loaded where line.contains("=>") {
            let target = line.components(separatedBy: "=> ").last ?? ""
            XCTAssertTrue(target.hasPrefix("/lib/") || target.hasPrefix("/usr/lib/"), "not one of Debian's libraries: \(line)")
        }
        XCTAssertGreaterThan(loaded.count, 10, "libcurl, libFLAC, ALSA… stay Debian's shared libraries")
        // It runs, and under the name `nimbus` it is the companion command line.
        let check = try runTool(binary, ["--help"], includingErrors: true)
        XCTAssertTrue(check.contains("nimbusd"), check)
    }
}
