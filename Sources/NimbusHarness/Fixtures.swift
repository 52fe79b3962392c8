import Foundation
import Synchronization

/// The fixture music library, generated once per test run by scripts/make-fixtures from
/// Debian's sox, lame, flac and oggenc (nothing binary is committed).
public enum Fixtures {
    private static let generated = Mutex<String?>(nil)

    public static var repositoryRoot: String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().path
    }

    /// A shared, read-only copy. Tests that modify the library use `freshLibrary()`.
    public static func library() throws -> String {
        try generated.withLock { path in
            if let path { return path }
            let directory = NSTemporaryDirectory() + "nimbus-fixtures-\(getpid())"
            try? FileManager.default.removeItem(atPath: directory)
            try runTool("/usr/bin/python3", [repositoryRoot + "/scripts/make-fixtures", directory])
            path = directory
            return directory
        }
    }

    /// A private copy of the library in `directory`, free to modify.
    public static func freshLibrary(in directory: String) throws -> String {
        let target = directory + "/music"
        try? FileManager.default.removeItem(atPath: target)
        try runTool("/bin/cp", ["-a", try library(), target])
        return target
    }
}
