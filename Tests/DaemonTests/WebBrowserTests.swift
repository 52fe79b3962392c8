import Foundation
import NimbusHarness
import XCTest

/// The web page in Debian's headless Chromium through selenium: what plays is shown, Play
/// (found by its accessible name) plays, a song another client adds appears in the queue
/// without a reload, nothing overflows at 360×740 or 1280×800, and the browser logs no
/// JavaScript error. Screenshots of each page at both sizes are kept as artifacts
/// (`.build/artifacts/web`).
final class WebBrowserTests: XCTestCase {
    func testThePageShowsWhatPlaysAndFollowsOtherClients() throws {
        try XCTSkipUnless(FileManager.default.fileExists(atPath: "/usr/bin/chromedriver"), "chromium-driver is not installed")
        let port = freePort()
        // The album's cover as people have them: a big scan, which the grid must get small.
        let work = NSTemporaryDirectory() + "nimbus-web-browser-\(getpid())"
        try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: work) }
        let music = try Fixtures.freshLibrary(in: work)
        try runTool("ffmpeg", ["-loglevel", "error", "-y", "-f", "lavfi", "-i", "testsrc=size=1200x1200", "-frames:v", "1",
            music + "/Alpha Band/First Light/cover.png"])
        try FileManager.default.createDirectory(atPath: music + "/Long", withIntermediateDirectories: true)
        try runTool("sox", ["-n", "-r", "8000", "-c", "1", "-b", "16", music + "/Long/long.wav", "synth", "30", "sine", "440"])
        let daemon = try ServerProcess(.nimbus, config: "loudness_analysis \"yes\"\nweb {\n    port \"\(port)\"\n}", musicDirectory: music)
        try daemon.waitForDatabase(songs: 13)
        let client = try daemon.connect()
        XCTAssertEqual(try client.request("add \"Alpha Band/First Light/03 - Dusk.wav\""), ["OK"])
        let artifacts = Fixtures.repositoryRoot + "/.build/artifacts/web"
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Scripts/web_page_browser.py").path
        let output = try runTool("/usr/bin/python3", [script, "http://127.0.0.1:\(port)/", "\(daemon.port)", artifacts])
        let result = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [String: Any], output)
        XCTAssertNil(result["error"], "the browser script stopped: \(result["error"] ?? "")")
        XCTAssertEqual(result["severe"] as? [String], [], "JavaScript errors")
        XCTAssertNotNil(result["firstShownMs"] as? Double, "the page never showed the song")
        XCTAssertEqual(result["title"] as? String, "Nothing is playing", "stopped: no current song, as currentsong says")
        XCTAssertEqual(result["titleAfterPlay"] as? String, "Dusk")
        XCTAssertGreaterThan(result["coverWidth"] as? Int ?? 0, 0, "the album's cover.png is shown")
        let labels = Set(result["labels"] as? [String] ?? [])
        for name in ["Play", "Next", "Previous", "Volume", "Queue"] { XCTAssertTrue(labels.contains(name), "\(name) in \(labels)") }
        XCTAssertEqual(result["outputSwitched"] as? Bool, true, "the output switched off from the page")
        XCTAssertEqual(result["outputBack"] as? Bool, true, "and on again")
        XCTAssertEqual(result["played"] as? Bool, true, "Play did not start playback")
        XCTAssertTrue((result["analysisShown"] as? String)?.contains("of 13 songs measured") == true, "the analysis line: \(result["analysisShown"] ?? "")")
        XCTAssertEqual(result["phoneUserAdded"] as? Bool, true, "a phone user added on Settings")
        XCTAssertEqual(result["phoneUserShown"] as? Bool, true)
        XCTAssertEqual(result["phoneKeyShown"] as? Bool, true, "a new API key is shown once")
        XCTAssertEqual(result["pauseShown"] as? Bool, true, "the page did not learn it plays")
        XCTAssertEqual(result["sleepSet"] as? Bool, true, "the sleep timer set from Now playing")
        XCTAssertNotNil(result["sleepShown"] as? String, "and counted down there")
        XCTAssertEqual(result["sleepOff"] as? Bool, true, "and turned off")
        XCTAssertEqual(result["nextPlayed"] as? Bool, true, "Next on the page")
        XCTAssertEqual(result["seeked"] as? Bool, true, "the seek bar on the page")
        XCTAssertNotNil(result["elapsedShown"] as? String, "and the page shows the new place")
        XCTAssertEqual(result["spacePaused"] as? Bool, true, "space pauses")
        XCTAssertEqual(result["spacePlayed"] as? Bool, true, "and plays again")
        XCTAssertEqual(result["queueFollowed"] as? Bool, true, "a song added over TCP did not appear")
        XCTAssertEqual(result["overflow360"] as? Bool, false, "horizontal scrolling at 360 px")
        XCTAssertEqual(result["overflow1280"] as? [String], [], "pages scrolling sideways at 1280 px")
        XCTAssertEqual(result["overflowLibrary360"] as? Bool, false, "the album grid scrolls sideways at 360 px")
        XCTAssertGreaterThanOrEqual(result["albumTiles"] as? Int ?? 0, 3, "the album grid")
        let gridCover = result["gridCover"] as? [Int] ?? []
        XCTAssertEqual(gridCover.prefix(2), [256, 256], "a 1200-pixel cover arrives scaled to the tile (160 px, 256 asked)")
        XCTAssertLessThan(gridCover.last ?? .max, 40_000, "a small JPEG, not the 1200-pixel PNG")
        XCTAssertNotNil(result["albumSongs"] as? String, "the album's page lists its songs")
        XCTAssertEqual(result["positions"] as? Bool, true, "a song's resume place and a played song are marked")
        XCTAssertGreaterThan(result["albumAdded"] as? Int ?? 0, 0, "Add on the album's page added its songs")
        XCTAssertTrue((result["artists"] as? String ?? "").contains("Alpha Band"), "the artists")
        XCTAssertNotNil(result["genres"] as? String, "the genres")
        XCTAssertEqual(result["genreAlbums"] as? Bool, true, "a genre opens its albums")
        XCTAssertEqual(result["prioritySet"] as? Bool, true, "priority set from the page shows in playlistid")
        XCTAssertEqual(result["movedUp"] as? Bool, true, "Move up from the page reorders the queue over TCP")
        XCTAssertEqual(result["removed"] as? Bool, true, "Remove from the page deletes the entry")
        XCTAssertEqual(result["playlistSaved"] as? Bool, true, "the queue saved from the page is a stored playlist")
        XCTAssertEqual(result["playlistShown"] as? Bool, true, "and the page lists it")
        XCTAssertEqual(result["statsSongs"] as? String, "13", "the daemon's statistics")
        XCTAssertEqual(result["crossfadeSet"] as? Bool, true, "crossfade set from the page")
        XCTAssertEqual(result["longQueue"] as? Int, (result["queueBeforeLong"] as? Int ?? 0) + 10_000, "10,000 more songs")
        XCTAssertLessThanOrEqual(result["rowsDrawn"] as? Int ?? .max, 120, "only the rows in view are drawn")
        XCTAssertEqual(result["lastReached"] as? Bool, true, "scrolling reaches the last song")
        let pages = ["now", "queue", "library", "playlists", "settings", "accounts", "offline"]
        for shot in pages.map({ "\($0)-1280" }) + ["now-360", "queue-360", "library-360", "album-360", "playlists-360", "settings-360"] {
            XCTAssertTrue(FileManager.default.fileExists(atPath: artifacts + "/\(shot).png"), shot)
        }
        _ = daemon
    }

    /// The cloud journey of the page: sign in from Accounts (the daemon runs the device flow;
    /// the emulator approves), the account's songs in the Library, an album kept offline and its
    /// download followed to completion, a search by a word of a title.
    func testSigningInKeepingAnAlbumOfflineAndSearchingFromThePage() throws {
        try XCTSkipUnless(FileManager.default.fileExists(atPath: "/usr/bin/chromedriver"), "chromium-driver is not installed")
        let drive = TemporaryDirectory("nimbus-web-drive")
        try AudioFixtures.writeTitledFLACAlbum(in: drive.path)
        let emulator = try CloudEmulator(provider: "yandex-disk", root: drive.path)
        try emulator.setDeviceSteps(["pending", "approve"])
        let port = freePort()
        let daemon = try ServerProcess(.nimbus, config: "web {\n    port \"\(port)\"\n}")
        let settings = emulator.signInSettings.map { "\"\($0.key)\" \"\($0.value)\"" }.joined(separator: " ")
        XCTAssertEqual(try daemon.connect().request("addaccount yadisk yandex-disk " + settings), ["OK"])
        let artifacts = Fixtures.repositoryRoot + "/.build/artifacts/web"
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Scripts/web_page_browser.py").path
        let output = try runTool("/usr/bin/python3", [script, "http://127.0.0.1:\(port)/", "\(daemon.port)", artifacts, "cloud", "yadisk"])
        let result = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [String: Any], output)
        XCTAssertNil(result["error"], "the browser script stopped: \(result["error"] ?? "")")
        XCTAssertEqual(result["severe"] as? [String], [], "JavaScript errors")
        XCTAssertEqual(result["userCode"] as? String, "WXYZ-1234", "the device code is shown")
        XCTAssertEqual(result["signedIn"] as? Bool, true)
        XCTAssertEqual(result["libraryShowsAccount"] as? Bool, true, "the page turns to the account's songs")
        XCTAssertEqual(result["pinCompleted"] as? Bool, true, "the album's download is followed to completion")
        XCTAssertEqual(result["searchFound"] as? Bool, true)
        XCTAssertEqual(result["overflow360"] as? Bool, false)
        let pins = try daemon.connect().request("listpins")
        XCTAssertTrue(pins.contains("state: completed"))
        let songs = pins.first { $0.hasPrefix("songs: ") }.flatMap { Int($0.dropFirst(7)) }
        XCTAssertEqual(result["pinSongs"] as? Int, songs, "each song of the pin shown with a full progress bar")
        XCTAssertTrue((result["cacheSpace"] as? String ?? "").contains("cache used"), "the cache's room, \(result["cacheSpace"] ?? "")")
        _ = (drive, emulator)
    }

    /// An SFTP account signed in from the page: the server's host key shown, the password held
    /// back until the person confirms the key, then the account's songs in the Library.
    func testSigningInToAnSFTPShareShowsTheHostKeyFirst() throws {
        try XCTSkipUnless(FileManager.default.fileExists(atPath: "/usr/bin/chromedriver"), "chromium-driver is not installed")
        try XCTSkipUnless(SSHServer.available, "sshd is not installed (scripts/install-deps) or not root")
        let drive = TemporaryDirectory("nimbus-web-sftp")
        try AudioFixtures.writeTitledFLACAlbum(in: drive.path)
        let ssh = try SSHServer()
        let port = freePort()
        let daemon = try ServerProcess(.nimbus, config: "web {\n    port \"\(port)\"\n}")
        XCTAssertEqual(try daemon.connect().request("addaccount box sftp url \(ssh.url(drive.path))"), ["OK"])
        let artifacts = Fixtures.repositoryRoot + "/.build/artifacts/web"
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Scripts/web_page_browser.py").path
        let output = try runTool("/usr/bin/python3", [script, "http://127.0.0.1:\(port)/", "\(daemon.port)", artifacts, "share", "box", ssh.password])
        let result = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [String: Any], output)
        XCTAssertNil(result["error"], "the browser script stopped: \(result["error"] ?? "")")
        XCTAssertEqual(result["severe"] as? [String], [], "JavaScript errors")
        XCTAssertTrue((result["fingerprint"] as? String ?? "").contains(ssh.fingerprint), "the host key is shown: \(result["fingerprint"] ?? "")")
        XCTAssertEqual(result["heldBack"] as? Bool, true, "not sent before the key is confirmed")
        XCTAssertEqual(result["signedIn"] as? Bool, true)
        XCTAssertEqual(result["libraryShowsAccount"] as? Bool, true)
        XCTAssertEqual(result["overflow360"] as? Bool, false)
        _ = (drive, ssh)
    }

    /// With a `password` and no permission without it, the page asks for the password, shows
    /// the daemon's refusal of a wrong one, and works once the right one is given.
    func testThePageAsksForThePassword() throws {
        try XCTSkipUnless(FileManager.default.fileExists(atPath: "/usr/bin/chromedriver"), "chromium-driver is not installed")
        let port = freePort()
        let daemon = try ServerProcess(
            .nimbus, config: "web {\n    port \"\(port)\"\n}\npassword \"letmein@read,add,control\"\ndefault_permissions \"\"")
        let artifacts = Fixtures.repositoryRoot + "/.build/artifacts/web-login"
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Scripts/web_page_browser.py").path
        let output = try runTool("/usr/bin/python3", [script, "http://127.0.0.1:\(port)/", "\(daemon.port)", artifacts, "login", "letmein"])
        let result = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [String: Any], output)
        XCTAssertNil(result["error"], "the browser script stopped: \(result["error"] ?? "")")
        XCTAssertEqual(result["askedForPassword"] as? Bool, true)
        XCTAssertEqual(result["refusedShown"] as? String, "incorrect password")
        XCTAssertEqual(result["loggedIn"] as? Bool, true)
        XCTAssertEqual(result["title"] as? String, "Nothing is playing")
        XCTAssertEqual(result["severe"] as? [String], [], "JavaScript errors")
        _ = daemon
    }

    /// Podcasts from the page: a feed subscribed by its address, the show listed with its
    /// episodes, and opened as its folder in the Library.
    func testSubscribingToAPodcastFromThePage() throws {
        try XCTSkipUnless(FileManager.default.fileExists(atPath: "/usr/bin/chromedriver"), "chromium-driver is not installed")
        let server = try HTTPFileServer()
        try server.put("/feed.xml", """
            <rss xmlns:itunes="http://www.itunes.com/dtds/podcast-1.0.dtd"><channel><title>Tea Time</title>
            <item><guid>2</guid><title>Green</title><pubDate>Tue, 01 Dec 2026 07:00:00 +0000</pubDate><itunes:duration>65</itunes:duration>
            <enclosure url="2.mp3" type="audio/mpeg"/></item>
            <item><guid>1</guid><title>Black</title><pubDate>Mon, 30 Nov 2026 07:00:00 +0000</pubDate><itunes:duration>60</itunes:duration>
            <enclosure url="1.mp3" type="audio/mpeg"/></item></channel></rss>
            """)
        let port = freePort()
        let daemon = try ServerProcess(.nimbus, config: "web {\n    port \"\(port)\"\n}", musicDirectory: try Fixtures.library())
        try daemon.waitForDatabase(songs: 12)
        let artifacts = Fixtures.repositoryRoot + "/.build/artifacts/web"
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Scripts/web_page_browser.py").path
        let output = try runTool("/usr/bin/python3", [script, "http://127.0.0.1:\(port)/", "\(daemon.port)", artifacts, "podcast", server.url + "/feed.xml"])
        let result = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [String: Any], output)
        XCTAssertNil(result["error"], "the browser script stopped: \(result["error"] ?? "")")
        XCTAssertEqual(result["severe"] as? [String], [], "JavaScript errors")
        XCTAssertEqual(result["subscribed"] as? Bool, true, "the show listed with its two episodes")
        XCTAssertTrue((result["episodesShown"] as? String ?? "").contains("Black"), "the show's folder in the Library")
        XCTAssertEqual(result["kept"] as? Bool, true, "Keep newest 1 from the page is podcastkeep")
        XCTAssertEqual(result["overflow360"] as? Bool, false)
        XCTAssertEqual(result["overflow1280"] as? Bool, false)
        XCTAssertEqual(try daemon.connect().request("listpodcasts").first, "podcast: Tea Time")
        _ = (server, daemon)
    }
}
