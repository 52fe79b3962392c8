import NimbusHarness
import XCTest

/// What the command-table checks share: the fixture songs they queue and small helpers. Each
/// check runs against a fresh in-process server on the fixture library with a paced null
/// output (CommandTableTests).
enum CheckHelpers {
    typealias Check = CommandTableTests.Check

    static let dawn = "\"Alpha Band/First Light/01 - Dawn.flac\""
    static let dusk = "\"Alpha Band/First Light/03 - Dusk.wav\""

    /// `key: value` from a status-like response.
    static func value(_ key: String, in lines: [String]) -> String? {
        lines.first { $0.hasPrefix(key + ": ") }.map { String($0.dropFirst(key.count + 2)) }
    }

    static func status(_ c: LineClient, _ key: String) throws -> String? { value(key, in: try c.request("status")) }

    static func playlist(_ c: LineClient) throws -> [String] { try c.request("playlist").dropLast() }

    static func ok(_ c: LineClient, _ command: String) throws { XCTAssertEqual(try c.request(command), ["OK"], command) }
}
