import Foundation
import NimbusHarness
import XCTest

/// The page on a phone (320×640 and 360×740) in headless Chromium: a bottom bar with Now
/// playing, Queue, Library and More, nothing wrapping or scrolling sideways, the current page
/// marked, and a mini player on every page but Now playing that plays, pauses and opens it.
final class WebPhoneLayoutTests: XCTestCase {
    func testTheBottomBarAndTheMiniPlayer() throws {
        try XCTSkipUnless(FileManager.default.fileExists(atPath: "/usr/bin/chromedriver"), "chromium-driver is not installed")
        let port = freePort()
        let music = TemporaryDirectory("nimbus-phone")
        try runTool("sox", ["-n", "-r", "8000", "-c", "1", "-b", "16", music.file("long.wav"), "synth", "60", "sine", "440"])
        let daemon = try ServerProcess(.nimbus, config: "web {\n    port \"\(port)\"\n}", musicDirectory: music.path)
        try daemon.waitForDatabase(songs: 1)
        let client = try daemon.connect()
        for line in ["add long.wav", "play", "pause 1"] { XCTAssertEqual(try client.request(line), ["OK"], line) }
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Scripts/web_phone_layout.py").path
        let output = try runTool("/usr/bin/python3", [script, "http://127.0.0.1:\(port)/", Fixtures.repositoryRoot + "/.build/artifacts/web"])
        let result = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [String: Any], output)
        XCTAssertEqual(result["severe"] as? [String], [], "JavaScript errors")
        for width in ["320", "360"] {
            let size = try XCTUnwrap((result["sizes"] as? [String: Any])?[width] as? [String: Any], output)
            XCTAssertEqual(size["innerWidth"] as? Int, Int(width))
            XCTAssertEqual(size["topBarShown"] as? Bool, false, "\(width): the page names above every page are gone")
            XCTAssertEqual(size["tabs"] as? [String], ["Now playing", "Queue", "Library", "More"], width)
            XCTAssertEqual(size["tabsWrapped"] as? Bool, false, "\(width): a tab wraps")
            XCTAssertEqual(size["overflowing"] as? [String], [], "\(width): pages scrolling sideways")
            let marked = size["marked"] as? [String: String] ?? [:]
            for page in ["now", "queue", "library", "more"] { XCTAssertEqual(marked[page], "#\(page)", "\(width): \(page) marked") }
            for page in ["accounts", "playlists", "podcasts", "offline", "equalizer", "settings"] {
                XCTAssertEqual(marked[page], "#more", "\(width): \(page) is under More")
            }
            let mini = size["mini"] as? [String: Bool] ?? [:]
            XCTAssertEqual(mini["now"], false, "\(width): no mini player on Now playing")
            XCTAssertEqual(Set(mini.filter { $0.value }.keys), Set(["queue", "library", "more", "accounts", "playlists", "podcasts", "offline", "equalizer", "settings"]), width)
            XCTAssertEqual(size["miniTitle"] as? String, "long.wav", "\(width): the mini player shows the song")
            XCTAssertEqual(size["miniToggled"] as? Bool, true, "\(width): play from the mini player")
            XCTAssertEqual(size["miniToggledBack"] as? Bool, true, "\(width): and pause")
            XCTAssertEqual(size["miniOpensNow"] as? Bool, true, "\(width): a tap opens Now playing")
        }
        XCTAssertEqual(result["laptopTopBar"] as? Bool, true, "the laptop keeps its top bar")
        XCTAssertEqual(result["laptopTabBar"] as? Bool, false, "and has no bottom bar")
        XCTAssertTrue(try client.request("status").contains("state: pause"), "the mini player's play and pause reached the daemon")
    }
}
