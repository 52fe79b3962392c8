import Foundation

/// `scripts/test-http-server` serving a folder on 127.0.0.1 for one test: playlists, feeds and
/// songs by URL, with byte ranges, validators, conditional requests and, from `.rules.json`,
/// the odd things real servers do (another Content-Type, redirects, gzip, 404).
public final class HTTPFileServer {
    public let root: String
    public let url: String
    private let directory: TemporaryDirectory
    private let process = Process()

    public init() throws {
        directory = TemporaryDirectory("nimbus-http")
        root = directory.path + "/files"
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        let state = directory.file("state.json")
        let json = try startHelperScript(process, script: "test-http-server", arguments: [root, state], state: state, what: "the test HTTP server")
        guard let url = json["url"] as? String else { throw LineClient.Failure(description: "the test HTTP server did not start") }
        self.url = url
    }

    deinit { stop() }

    public func stop() {
        guard process.isRunning else { return }
        process.terminate()
        process.waitUntilExit()
    }

    /// Writes a file to serve at `path` (below the root).
    public func put(_ path: String, _ bytes: [UInt8]) throws {
        let full = root + "/" + path
        try FileManager.default.createDirectory(
            atPath: (full as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try Data(bytes).write(to: URL(fileURLWithPath: full))
    }

    public func put(_ path: String, _ text: String) throws { try put(path, Array(text.utf8)) }

    /// What the server does for particular paths (see the script's documentation).
    public func setRules(_ rules: [String: [String: Any]]) throws {
        try JSONSerialization.data(withJSONObject: rules).write(to: URL(fileURLWithPath: root + "/.rules.json"))
    }

    public struct Request: Sendable {
        public let method: String
        public let path: String
        public let range: String?
        public let status: Int
        public let bytes: Int
        public let conditional: Bool
    }

    /// Every request answered so far, oldest first.
    public var requests: [Request] {
        let text = (try? String(contentsOfFile: directory.file("requests.log"), encoding: .utf8)) ?? ""
        return text.split(separator: "\n").compactMap { line in
            guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else { return nil }
            return Request(
                method: object["method"] as? String ?? "", path: object["path"] as? String ?? "", range: object["range"] as? String,
                status: object["status"] as? Int ?? 0, bytes: object["bytes"] as? Int ?? 0,
                conditional: object["conditional"] as? Bool ?? false)
        }
    }

    /// Bytes of bodies sent for `path` (all paths when nil).
    public func bytesSent(for path: String? = nil) -> Int {
        requests.filter { path == nil || $0.path == path }.reduce(0) { $0 + $1.bytes }
    }
}
