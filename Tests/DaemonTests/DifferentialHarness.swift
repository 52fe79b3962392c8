import Foundation
import NimbusHarness
import XCTest

/// Runs protocol scripts against Debian's MPD and nimbusd started with the same config (and
/// optionally the same music directory) and fails on the first differing line.
struct DifferentialHarness {
    var config = ""
    var musicDirectory: String?
    /// Songs both databases must hold before the scripts run.
    var songs: Int?
    /// Rewrites lines that legitimately differ (nil drops the line).
    var mask: ([String]) -> [String] = { $0 }

    func compare(_ scripts: [ProtocolScript], file: StaticString = #filePath, line: UInt = #line) throws {
        try XCTSkipUnless(ServerProcess.mpdAvailable, "Debian's mpd is not installed (scripts/install-deps)")
        let reference = try ServerProcess(.mpd, config: config, musicDirectory: musicDirectory)
        let nimbus = try ServerProcess(.nimbus, config: config, musicDirectory: musicDirectory)
        if let songs {
            try reference.waitForDatabase(songs: songs)
            try nimbus.waitForDatabase(songs: songs)
        }
        for script in scripts {
            let expected = mask(try script.run(against: reference.endpoint))
            let actual = mask(try script.run(against: nimbus.endpoint))
            guard expected != actual else { continue }
            let index = zip(expected, actual).enumerated().first { $0.element.0 != $0.element.1 }?.offset
                ?? min(expected.count, actual.count)
            XCTFail(
                """
                script \(script.name) differs at line \(index):
                MPD:    \(index < expected.count ? expected[index] : "<end>")
                nimbus: \(index < actual.count ? actual[index] : "<end>")
                MPD transcript:
                \(expected.joined(separator: "\n"))
                nimbus transcript:
                \(actual.joined(separator: "\n"))
                """, file: file, line: line)
        }
    }
}
