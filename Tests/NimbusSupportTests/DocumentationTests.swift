import Foundation
import NimbusHarness
import XCTest

/// The documentation cannot drift from the code: every configuration key the reader knows is
/// in docs/configuration.md, every link between the files resolves (anchors included), and
/// README's design map names every target of Package.swift.
final class DocumentationTests: XCTestCase {
    private let root = Fixtures.repositoryRoot

    private func text(_ path: String) throws -> String {
        try String(contentsOfFile: root + "/" + path, encoding: .utf8)
    }

    private func matches(_ pattern: String, in text: String, group: Int = 1) throws -> [String] {
        let regex = try NSRegularExpression(pattern: pattern)
        let ns = text as NSString
        return regex.matches(in: text, range: NSRange(location: 0, length: ns.length)).map { ns.substring(with: $0.range(at: group)) }
    }

    /// The keys `ConfigReader` and the block readers switch on, and the cloud block's list.
    private func configurationKeys() throws -> Set<String> {
        let folder = root + "/Sources/NimbusConfig"
        var keys: Set<String> = []
        for file in try FileManager.default.contentsOfDirectory(atPath: folder) where file.hasSuffix(".swift") {
            let source = try text("Sources/NimbusConfig/" + file)
            for clause in try matches(#"case ("[a-z_]+"(?:, "[a-z_]+")*)(?: where [^:]+)?:"#, in: source) {
                keys.formUnion(try matches(#""([a-z_]+)""#, in: clause))
            }
            for list in try matches(#"knownKeys: Set<String> = \[([^\]]+)\]"#, in: source) {
                keys.formUnion(try matches(#""([a-z_]+)""#, in: list))
            }
        }
        // Values, not keys: booleans, the log levels and resampler qualities are spelled in
        // the text around them.
        return keys.subtracting(["yes", "no", "true", "false", "syslog"])
    }

    func testEveryConfigurationKeyIsDocumented() throws {
        let reference = try text("docs/configuration.md")
        let keys = try configurationKeys()
        XCTAssertGreaterThan(keys.count, 60, "the reader's keys were found")
        let missing = keys.filter { !reference.contains("`\($0)`") && !reference.contains("`\($0) {") }.sorted()
        XCTAssertEqual(missing, [], "keys the daemon reads but docs/configuration.md does not explain")
    }

    /// GitHub's anchor for a heading: lower case, punctuation dropped, spaces as hyphens.
    private func anchor(_ heading: String) -> String {
        String(
            heading.lowercased().compactMap { character -> Character? in
                if character == " " { return "-" }
                return character.isLetter || character.isNumber || character == "-" || character == "_" ? character : nil
            })
    }

    func testEveryLinkBetweenTheDocumentsResolves() throws {
        let docs = try FileManager.default.contentsOfDirectory(atPath: root + "/docs").filter { $0.hasSuffix(".md") }.map { "docs/" + $0 }
        XCTAssertGreaterThanOrEqual(docs.count, 10)
        var anchors: [String: Set<String>] = [:]
        for file in docs + ["README.md", "CHANGELOG.md"] {
            anchors[file] = Set(try matches(#"(?m)^#+ (.+)$"#, in: text(file)).map(anchor))
        }
        var broken: [String] = []
        for file in docs + ["README.md"] {
            let folder = (file as NSString).deletingLastPathComponent
            for link in try matches(#"\]\(([^)\s]+)\)"#, in: text(file)) where !link.contains("://") && !link.hasPrefix("mailto:") {
                let parts = link.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
                let target = parts[0].isEmpty ? file : ((folder as NSString).appendingPathComponent(parts[0]) as NSString).standardizingPath
                guard FileManager.default.fileExists(atPath: root + "/" + target) else {
                    broken.append("\(file): \(link)")
                    continue
                }
                if parts.count == 2, target.hasSuffix(".md"), anchors[target]?.contains(parts[1]) != true {
                    broken.append("\(file): \(link) (no such heading)")
                }
            }
        }
        XCTAssertEqual(broken, [])
    }

    func testTheDesignNamesEveryTarget() throws {
        let manifest = try text("Package.swift")
        let design = try text("docs/design.md")
        let targets = try matches(#"\.(?:target|executableTarget|systemLibrary)\(\s*name:\s*"([^"]+)""#, in: manifest)
        XCTAssertGreaterThan(targets.count, 20)
        XCTAssertEqual(targets.filter { !design.contains("`\($0)`") }, [], "targets docs/design.md does not describe")
    }

    func testTheReadmeStaysAnOverview() throws {
        let readme = try text("README.md")
        XCTAssertLessThan(readme.utf8.count, 24_000, "the user guide lives in docs/")
        XCTAssertTrue(readme.contains("make run") && readme.contains("make test"))
    }
}

/// One version number: VERSION, which `make deb` reads, and the daemon's `Version.string`.
final class VersionFileTests: XCTestCase {
    func testTheDaemonSaysTheVersionFilesNumber() throws {
        let root = Fixtures.repositoryRoot
        let number = try String(contentsOfFile: root + "/VERSION", encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        XCTAssertNotNil(number.range(of: #"^[0-9]+\.[0-9]+\.[0-9]+$"#, options: .regularExpression), number)
        let source = try String(contentsOfFile: root + "/Sources/NimbusDaemon/Version.swift", encoding: .utf8)
        XCTAssertTrue(source.contains("public static let string = \"\(number)\""), "Version.swift says another number than VERSION")
    }
}
