import Foundation

/// Starts one of the project's helper servers (`scripts/…`, Python) that writes its address
/// to a JSON state file once it listens, and returns that file's contents.
func startHelperScript(_ process: Process, script: String, arguments: [String], state: String, what: String) throws -> [String: Any] {
    process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
    process.arguments = [Fixtures.repositoryRoot + "/scripts/" + script] + arguments
    process.standardOutput = FileHandle.nullDevice
    process.standardError = FileHandle.nullDevice
    try process.run()
    guard waitUntil({ FileManager.default.fileExists(atPath: state) }), let data = FileManager.default.contents(atPath: state),
        let json = try JSONSerialization.jsonObject(with: data) as? [String: Any]
    else { throw LineClient.Failure(description: "\(what) did not start") }
    return json
}
