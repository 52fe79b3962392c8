import Foundation

/// The project's emulator of a cloud API (`scripts/cloud-emulator`): Yandex.Disk, Dropbox,
/// Google Drive or OneDrive over a folder, with expiring tokens, signed download links and
/// faults on demand.
public final class CloudEmulator {
    public let provider: String
    public let root: String
    public let api: String
    public let tokenURL: String
    public let tokenFile: String
    public let clientID: String
    public let clientSecret: String
    private let process = Process()
    private let directory: TemporaryDirectory

    public init(provider: String, root: String) throws {
        self.provider = provider
        self.root = root
        directory = TemporaryDirectory("nimbus-emulator")
        let state = directory.file("state.json")
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = [Fixtures.repositoryRoot + "/scripts/cloud-emulator", provider, root, state]
        process.standardOutput = FileHandle.nullDevice
        // Not the test's own stderr: an emulator outliving its test would hold that pipe open
        // and keep `swift test` waiting.
        _ = FileManager.default.createFile(atPath: directory.file("emulator.log"), contents: nil)
        process.standardError = FileHandle(forWritingAtPath: directory.file("emulator.log"))
        try process.run()
        guard waitUntil({ FileManager.default.fileExists(atPath: state) }),
            let data = FileManager.default.contents(atPath: state),
            let json = try JSONSerialization.jsonObject(with: data) as? [String: String]
        else { throw LineClient.Failure(description: "the \(provider) emulator did not start") }
        api = json["api"]!
        tokenURL = json["token_url"]!
        clientID = json["client_id"]!
        clientSecret = json["client_secret"]!
        let tokens: [String: String] = [
            "access_token": json["access_token"]!, "refresh_token": json["refresh_token"]!,
            "client_id": json["client_id"]!, "client_secret": json["client_secret"]!,
        ]
        tokenFile = directory.write("token.json", String(decoding: try JSONSerialization.data(withJSONObject: tokens), as: UTF8.self))
    }

    deinit { stop() }

    /// The provider goes away (its files, the token among them, stay).
    public func stop() {
        guard process.isRunning else { return }
        process.terminate()
        process.waitUntilExit()
    }

    /// The `cloud` block for a daemon config.
    public func configBlock(name: String, root: String = "/") -> String {
        var endpoints = "    api_url \"\(api)\"\n"
        switch provider {
        case "onedrive": endpoints = "    api_url \"\(api)/v1.0\"\n"
        case "dropbox": endpoints += "    content_url \"\(api)\"\n"
        default: break
        }
        return """
            cloud {
                name "\(name)"
                type "\(provider)"
                root "\(root)"
                token_file "\(tokenFile)"
                token_url "\(tokenURL)"
            \(endpoints)}
            """
    }

    /// The settings of an account signing in through this emulator: the app's id and secret
    /// and the emulator's endpoints (for a `cloud` block or `addaccount`).
    public var signInSettings: [(key: String, value: String)] {
        var settings = [
            ("client_id", clientID), ("client_secret", clientSecret), ("token_url", tokenURL),
            ("device_code_url", api + (provider == "onedrive" ? "/devicecode" : "/device/code")),
            ("authorize_url", api + (provider == "google-drive" ? "/o/oauth2/v2/auth" : "/oauth2/authorize")),
            ("api_url", provider == "onedrive" ? api + "/v1.0" : api),
        ]
        if provider == "dropbox" { settings.append(("content_url", api)) }
        return settings
    }

    /// A `cloud` block for signing in with `nimbus authorize`, the token to be written at `tokenFile`.
    public func signInBlock(name: String, tokenFile: String) -> String {
        let lines = ([("name", name), ("type", provider), ("token_file", tokenFile)] + signInSettings).map { "    \($0.0) \"\($0.1)\"" }
        return "cloud {\n" + lines.joined(separator: "\n") + "\n}"
    }

    /// How the next device sign-ins' polls are answered: `pending`, `slow_down`, `approve`,
    /// `deny`, `expire` (the last one repeats).
    public func setDeviceSteps(_ steps: [String]) throws { try admin("/_admin/device?steps=" + steps.joined(separator: ",")) }
    public var stats: [String: Any] { (try? admin("/_admin/stats")) ?? [:] }
    /// The next device-code answers misbehave: `array` (JSON not an object), `huge` (10 MB),
    /// `control` (a user code of control characters); `normal` ends it.
    public func setDeviceAnswer(_ kind: String) throws { try admin("/_admin/device_answer?kind=" + kind) }
    /// What a Nextcloud login through this emulator ends with.
    public func setNextcloudLogin(server: String, user: String, password: String) throws {
        let query = [("server", server), ("user", user), ("password", password)].map { name, value in
            name + "=" + (value.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? value)
        }.joined(separator: "&")
        try admin("/_admin/nextcloud?" + query)
    }

    @discardableResult
    private func admin(_ path: String) throws -> [String: Any] {
        let method = path.hasPrefix("/_admin/stats") ? "GET" : "POST"
        let script = """
            import sys, urllib.request
            data = b"" if sys.argv[2] == "POST" else None
            print(urllib.request.urlopen(urllib.request.Request(sys.argv[1], method=sys.argv[2], data=data)).read().decode())
            """
        let output = try runTool("/usr/bin/python3", ["-c", script, api + path, method])
        return (try? JSONSerialization.jsonObject(with: Data(output.utf8))) as? [String: Any] ?? [:]
    }

    /// Every access token is invalid from now on (the next call gets a 401).
    public func expireTokens() throws { try admin("/_admin/expire") }
    public func throttle(count: Int, retryAfter: Int = 1) throws { try admin("/_admin/throttle?count=\(count)&retry_after=\(retryAfter)") }
    /// The next download response is cut after `bytes`.
    public func dropNextDownload(after bytes: Int) throws { try admin("/_admin/drop?after=\(bytes)") }
    public func setLatency(milliseconds: Int) throws { try admin("/_admin/latency?ms=\(milliseconds)") }
    /// Each download's bytes per second (0: as fast as it goes).
    public func setRate(bytesPerSecond: Int) throws { try admin("/_admin/rate?bps=\(bytesPerSecond)") }
    public var bytesSent: Int { ((try? admin("/_admin/stats"))?["bytes"] as? Int) ?? -1 }
    public var requests: Int { ((try? admin("/_admin/stats"))?["requests"] as? Int) ?? -1 }
}
