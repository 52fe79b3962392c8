import Foundation
import NimbusHarness
import XCTest

/// The web page's Equalizer in headless Chromium (Scripts/web_equalizer.py): import, drag,
/// type, bypass, crossfeed, bands added and removed, each read back over TCP.
final class WebEqualizerTests: XCTestCase {
    func testTheEqualizerPageEditsWhatEveryClientSees() throws {
        let port = freePort()
        let daemon = try ServerProcess(.nimbus, config: "web {\n    port \"\(port)\"\n}")
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Scripts/web_equalizer.py").path
        let output = try runTool(
            "/usr/bin/python3", [script, "http://127.0.0.1:\(port)/", String(daemon.port), Fixtures.repositoryRoot + "/.build/artifacts/web"])
        let result = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [String: Any], output)
        XCTAssertNil(result["error"], "\(result["error"] ?? "")")
        XCTAssertEqual(result["severe"] as? [String], [], "JavaScript errors")
        XCTAssertEqual(result["outputs"] as? [String], ["null"])
        XCTAssertEqual((result["imported"] as? [String])?.first, "Preamp: -6.2 dB", "the pasted text became a preset")
        XCTAssertEqual(result["inUse"] as? Bool, true, "and the output uses it")
        XCTAssertEqual(result["pointsShown"] as? Int, 2, "a point per band")
        XCTAssertEqual(result["curveShown"] as? Bool, true)
        XCTAssertEqual(result["selected"] as? String, "HD 600")
        XCTAssertNotNil(result["dragged"] as? String, "dragging moved the band")
        XCTAssertNotNil(result["typed"] as? String, "typing set the gain")
        for key in ["bypass", "crossfeed", "added", "askedToRemove", "removed", "followed"] { XCTAssertEqual(result[key] as? Bool, true, key) }
        withExtendedLifetime(daemon) {}
    }
}
