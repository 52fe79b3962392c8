import Foundation

/// A helper program the tests start (snapserver, snapclient, a server of some kind), stopped
/// when the value goes away. Its output goes to a file the test may read.
public final class ChildProcess {
    public let process = Process()
    public let outputPath: String

    public init(_ executable: String, _ arguments: [String], environment: [String: String] = [:]) throws {
        outputPath = NSTemporaryDirectory() + "nimbus-child-\(UUID().uuidString).log"
        _ = FileManager.default.createFile(atPath: outputPath, contents: nil)
        let output = FileHandle(forWritingAtPath: outputPath)
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        process.standardOutput = output
        process.standardError = output
        try process.run()
    }

    public var output: String { (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? "" }

    deinit {
        if process.isRunning {
            process.terminate()
            let deadline = Date().addingTimeInterval(5)
            while process.isRunning && Date() < deadline { usleep(20_000) }
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        }
        try? FileManager.default.removeItem(atPath: outputPath)
    }
}
