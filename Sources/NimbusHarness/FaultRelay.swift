import Foundation

/// `scripts/fault-relay` in front of a local HTTP server: with faults on, connections are
/// answered 503, cut, stalled or throttled, each as a seeded random stream decides.
public final class FaultRelay {
    private let process = Process()
    private let directory = TemporaryDirectory("nimbus-fault-relay")
    public let port: Int

    public init(targetPort: Int) throws {
        let state = directory.file("state.json")
        try Data("{\"faults\": false}".utf8).write(to: URL(fileURLWithPath: directory.file("control.json")))
        let json = try startHelperScript(
            process, script: "fault-relay", arguments: [String(targetPort), state, directory.file("control.json")], state: state, what: "the fault relay")
        guard let port = json["port"] as? Int else { throw LineClient.Failure(description: "the fault relay did not start") }
        self.port = port
    }

    deinit { stop() }

    public func stop() {
        guard process.isRunning else { return }
        process.terminate()
        process.waitUntilExit()
    }

    /// How faults are drawn: per connection (the mix the suite has always used), or per
    /// request with `Connection: close` forced (cut 20%, stall 2 s 15%, 50 KB/s 15%, 500/503 15%).
    public enum Mix: String, Sendable {
        case classic, requests
    }

    /// Faults for the connections opened from now on; `rate` throttles every connection.
    public func setFaults(_ on: Bool, seed: Int, mix: Mix = .classic, rate: Int? = nil) {
        let throttle = rate.map { ", \"rate\": \($0)" } ?? ""
        // Atomically: the relay reads it at every connection.
        try? Data("{\"faults\": \(on), \"seed\": \(seed), \"mix\": \"\(mix.rawValue)\"\(throttle)}".utf8).write(
            to: URL(fileURLWithPath: directory.file("control.json")), options: .atomic)
    }

    /// Connections that met a fault so far (the count file is refreshed five times a second).
    public var faults: Int {
        Thread.sleep(forTimeInterval: 0.3)
        guard let data = FileManager.default.contents(atPath: directory.file("state.json")),
            let json = try? JSONSerialization.jsonObject(with: data) as? [String: Int]
        else { return 0 }
        return json["faults"] ?? 0
    }
}
