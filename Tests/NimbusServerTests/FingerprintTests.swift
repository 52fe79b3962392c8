import NimbusHarness
import XCTest

/// getfingerprint on sweeps sox synthesizes (deterministic), against the fingerprints Debian's
/// MPD 0.23.12 (built with libchromaprint) gave for the same files: a 16-bit FLAC, a 24-bit
/// FLAC (MPD's dither to 16 bits) and a mono Vorbis file (MPD's float conversion).
final class FingerprintTests: XCTestCase {
    static let expected = [
        "sweep16.flac": "AQAAK7uyJEk04dzgKFvSDHHyQ3qQY7dDlKWDZkmO_MfeaciddaizTmiUD_vkCMeNPVWl4PmOLHyD5Lhy4uoxSTq-XMG_RML8R8iT5EJS8rgyeOGPPxGeYy-ao48WXGdRRMoLXUp45DGOA4CVAMZQY4QzAHAyDCFKI6AUNoAQIQCUDAEiKSNUCUAIMdYE",
        "sweep24.flac": "AQAAK4qyKUkjBT9-vBH-IPkRH8f5PPhx9HgGXcNT4ynuHMeU40fTHGH2oMwJHM-x93hwX4HpxAEzNMF0NMdx_HiIH3sORsfzI38OLESADlAG2AGCKHbBaIRIi5BWErqKiKFEAPBaFRwZARlARgkB",
        "mono.ogg": "AQAAK1MyMZOyRDh65FGI5MMp4mFyHJMNN4cfeB9C5sCHvTlwdPE6NHQOJsGDKcXx4CQeBsfIHFmUH3-OP8Dxjzj-BHqq48d3vD-eowB2PShEWkwdRgVZgFirHAlkmBAcYEg0Ewg5CDQBhgM",
    ]

    func testFingerprintsMatchMPDs() throws {
        let music = TemporaryDirectory("nimbus-fingerprint")
        try runTool("sox", ["-n", "-r", "44100", "-b", "16", "-c", "2", music.file("sweep16.flac"), "synth", "8", "sine", "220-1760", "sine", "330-990"])
        try runTool("sox", ["-n", "-r", "48000", "-b", "24", "-c", "2", music.file("sweep24.flac"), "synth", "8", "sine", "440-1200"])
        try runTool("sox", ["-n", "-r", "22050", "-c", "1", music.file("mono.ogg"), "synth", "8", "sine", "500-1500"])
        let server = try TestServer(musicDirectory: music.path)
        let client = try server.connect()
        for (name, fingerprint) in Self.expected.sorted(by: { $0.key < $1.key }) {
            XCTAssertEqual(try client.request("getfingerprint \(name)"), ["chromaprint: \(fingerprint)", "OK"], name)
        }
    }

    func testErrorsNameTheProblem() throws {
        let server = try TestServer(musicDirectory: try Fixtures.library())
        let client = try server.connect()
        XCTAssertEqual(try client.request("getfingerprint ../x"), ["ACK [2@0] {getfingerprint} Bad relative path"])
        XCTAssertEqual(try client.request("getfingerprint /etc/passwd"), ["ACK [4@0] {getfingerprint} Access to local files via TCP is not allowed"])
        XCTAssertEqual(try client.request("getfingerprint"), [#"ACK [2@0] {getfingerprint} wrong number of arguments for "getfingerprint""#])
        let missing = try client.request("getfingerprint nosuch.flac")
        XCTAssertEqual(missing.count, 1)
        XCTAssertTrue(missing[0].hasPrefix("ACK [52@0] {getfingerprint} "), missing[0])
        // A song too short to fingerprint still answers, as in MPD (libchromaprint's empty print).
        XCTAssertEqual(try client.request("getfingerprint untagged.wav"), ["chromaprint: AQAAAA", "OK"])
        XCTAssertEqual(try client.request("ping"), ["OK"], "the connection goes on")
    }
}
