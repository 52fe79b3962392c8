import Foundation
import NimbusHarness
import XCTest

/// The dependency graph in Package.swift is the architecture: every target must declare
/// exactly the project targets it imports, so the graph a reader sees is the real one.
final class ArchitectureTests: XCTestCase {
    /// Each target of Package.swift with the project targets (and C modules) it depends on.
    private func declaredDependencies() throws -> [String: Set<String>] {
        let manifest = try String(contentsOfFile: Fixtures.repositoryRoot + "/Package.swift", encoding: .utf8)
        let target = try NSRegularExpression(
            pattern: #"\.(?:target|testTarget|executableTarget)\(\s*name:\s*"([^"]+)"\s*,\s*dependencies:\s*\[([^\]]*)\]"#)
        var result: [String: Set<String>] = [:]
        let text = manifest as NSString
        for match in target.matches(in: manifest, range: NSRange(location: 0, length: text.length)) {
            let names = text.substring(with: match.range(at: 2)).split(separator: ",").map {
                $0.trimmingCharacters(in: .whitespacesAndNewlines).trimmingCharacters(in: CharacterSet(charactersIn: "\""))
            }.filter { !$0.isEmpty }
            result[text.substring(with: match.range(at: 1))] = Set(names)
        }
        return result
    }

    private func imports(of target: String, known: Set<String>) throws -> Set<String> {
        let root = Fixtures.repositoryRoot
        let folder = FileManager.default.fileExists(atPath: "\(root)/Sources/\(target)") ? "\(root)/Sources/\(target)" : "\(root)/Tests/\(target)"
        var found: Set<String> = []
        let files = FileManager.default.enumerator(atPath: folder)?.compactMap { $0 as? String }.filter { $0.hasSuffix(".swift") } ?? []
        for file in files {
            for line in try String(contentsOfFile: folder + "/" + file, encoding: .utf8).split(separator: "\n") {
                let words = line.split(separator: " ")
                guard let index = words.firstIndex(of: "import"), words[..<index].allSatisfy({ $0.hasPrefix("@") }),
                    index + 1 < words.count
                else { continue }
                let module = String(words[index + 1])
                if known.contains(module) { found.insert(module) }
            }
        }
        return found
    }

    func testEveryTargetDeclaresExactlyWhatItImports() throws {
        let declared = try declaredDependencies()
        XCTAssertGreaterThan(declared.count, 20, "Package.swift was not understood")
        let known = Set(declared.keys).union(declared.values.flatMap { $0 })
        // The daemon tests run the built executables; they depend on them without importing them.
        let builtNotImported = ["DaemonTests": Set(["nimbusd", "nimbus"])]
        for (target, declaredHere) in declared {
            let dependencies = declaredHere.subtracting(builtNotImported[target] ?? [])
            let imported = try imports(of: target, known: known)
            XCTAssertEqual(imported.subtracting(dependencies).sorted(), [], "\(target) imports targets it does not declare")
            XCTAssertEqual(dependencies.subtracting(imported).sorted(), [], "\(target) declares targets it never imports")
        }
    }

    /// The audio path's layers, as MPD's src/pcm, src/encoder and src/output: outputs use the
    /// PCM and encoder layers and hold no codec of their own; transcoding reaches the encoders
    /// without going through the outputs.
    func testTheAudioPathIsLayered() throws {
        let declared = try declaredDependencies()
        let output = try XCTUnwrap(declared["NimbusOutput"]), transcode = try XCTUnwrap(declared["NimbusTranscode"])
        XCTAssertTrue(output.isSuperset(of: ["NimbusPCM", "NimbusEncoder"]), "outputs convert and encode through the shared layers")
        XCTAssertEqual(output.intersection(["CFLAC", "CVorbis", "COpus", "CLame", "CSoxr", "CFFmpeg"]).sorted(), [], "no codec inside the outputs")
        XCTAssertFalse(transcode.contains("NimbusOutput"), "transcoding does not depend on the outputs")
        XCTAssertTrue(transcode.isSuperset(of: ["NimbusPCM", "NimbusEncoder"]))
        for layer in ["NimbusPCM", "NimbusEncoder"] {
            let below = try XCTUnwrap(declared[layer])
            XCTAssertEqual(below.filter { $0.hasPrefix("Nimbus") && !["NimbusModel", "NimbusSupport"].contains($0) }.sorted(), [], "\(layer) sits on the model alone")
        }
    }

    /// Threads are declared in one place: only NimbusSupport starts a `Thread` (everyone else
    /// through `DaemonThread`, which names it and sets its priority on entry) or uses
    /// Dispatch's global pool, and no pool is a process-wide singleton.
    func testThreadsAreStartedOnlyThroughTheSupportLayer() throws {
        let root = Fixtures.repositoryRoot + "/Sources"
        let forbidden = try NSRegularExpression(
            pattern: #"(?<![A-Za-z_.])Thread\s*[({]|Thread\.detachNewThread|DispatchQueue\.global|\b(?:BlockingWork|Fetcher)\.shared\b|applyToCurrentThread\(\)"#)
        let files = FileManager.default.enumerator(atPath: root)?.compactMap { $0 as? String }.filter { $0.hasSuffix(".swift") } ?? []
        XCTAssertGreaterThan(files.count, 100, "the sources were not found")
        for file in files where !file.hasPrefix("NimbusSupport/") {
            let text = try String(contentsOfFile: root + "/" + file, encoding: .utf8)
            let range = NSRange(location: 0, length: (text as NSString).length)
            let found = forbidden.matches(in: text, range: range).map { (text as NSString).substring(with: $0.range) }
            XCTAssertEqual(found, [], "\(file) starts or ranks a thread outside NimbusSupport")
        }
    }

    /// The Subsonic API's endpoints are one sorted table, each name once.
    func testTheSubsonicEndpointTableIsSortedAndUnique() throws {
        let text = try String(contentsOfFile: Fixtures.repositoryRoot + "/Sources/NimbusSubsonic/SubsonicEndpointTable.swift", encoding: .utf8)
        let entry = try NSRegularExpression(pattern: #"SubsonicEndpoint\("(\w+)""#)
        let names = entry.matches(in: text, range: NSRange(location: 0, length: (text as NSString).length)).map {
            (text as NSString).substring(with: $0.range(at: 1))
        }
        XCTAssertGreaterThan(names.count, 60, "the table was not found")
        XCTAssertEqual(names, names.sorted(), "sorted by name")
        XCTAssertEqual(Set(names).count, names.count, "each name once")
    }

    /// What a storage can do is asked of the storage (`Storage`'s capabilities), never found out
    /// by casting it to the kind that happens to answer today.
    func testNoCodeDowncastsAStorage() throws {
        let root = Fixtures.repositoryRoot + "/Sources"
        let cast = try NSRegularExpression(pattern: #"\bas[?!]\s*\(?\s*(?:any\s+)?\w*Storage\b"#)
        let files = FileManager.default.enumerator(atPath: root)?.compactMap { $0 as? String }.filter { $0.hasSuffix(".swift") } ?? []
        XCTAssertGreaterThan(files.count, 100, "the sources were not found")
        for file in files {
            let text = try String(contentsOfFile: root + "/" + file, encoding: .utf8)
            let found = cast.numberOfMatches(in: text, range: NSRange(location: 0, length: (text as NSString).length))
            XCTAssertEqual(found, 0, "\(file) downcasts a storage")
        }
    }

    /// `@unchecked Sendable` switches the compiler's check off, so each one says beside it
    /// (a comment within three lines) what makes it safe.
    func testEveryUncheckedSendableStatesItsInvariant() throws {
        let root = Fixtures.repositoryRoot + "/Sources"
        let files = FileManager.default.enumerator(atPath: root)?.compactMap { $0 as? String }.filter { $0.hasSuffix(".swift") } ?? []
        var silent: [String] = []
        for file in files {
            let lines = try String(contentsOfFile: root + "/" + file, encoding: .utf8).components(separatedBy: "\n")
            for (index, line) in lines.enumerated() where line.contains("@unchecked Sendable") && !line.trimmingCharacters(in: .whitespaces).hasPrefix("//") {
                let near = lines[max(0, index - 3)..<min(lines.count, index + 4)]
                if !near.contains(where: { $0.contains("//") }) { silent.append("\(file):\(index + 1)") }
            }
        }
        XCTAssertEqual(silent, [], "@unchecked Sendable without a word on why it is safe")
    }
}
