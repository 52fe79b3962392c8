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
}
