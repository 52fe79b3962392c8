import Foundation
import Glibc

/// A daemon under test running as a real child process: nimbusd from this build, or Debian's
/// mpd as the reference. Ready once it greets on its TCP port.
public final class ServerProcess {
    public private(set) var process = Process()
    private var launchArguments: [String] = []
    private var launchExecutable = ""
    public let port: Int
    public let directory: TemporaryDirectory
    public let configPath: String
    private let outputPath: String

    public enum Kind {
        case nimbus
        case mpd

        var executable: String {
            switch self {
            case .nimbus: return ServerProcess.nimbusExecutable
            case .mpd: return ServerProcess.mpdExecutable
            }
        }
    }

    /// The directory holding the test bundle and the products built with it.
    public static var buildDirectory: String {
        let exe = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        var url = URL(fileURLWithPath: exe)
        while url.path != "/" && !FileManager.default.fileExists(atPath: url.appendingPathComponent("nimbusd").path) {
            url.deleteLastPathComponent()
        }
        return url.path
    }

    /// This build's nimbusd, or the binary `NIMBUS_DAEMON` names: `make bench` sets it to the
    /// static build `make deb` ships, so memory is measured on what a box really runs (the
    /// Swift runtime linked in rather than mapped as a dozen shared libraries); empty means this build's.
    public static var nimbusExecutable: String { ProcessInfo.processInfo.environment["NIMBUS_DAEMON"].flatMap { $0.isEmpty ? nil : $0 } ?? buildDirectory + "/nimbusd" }

    /// Debian's MPD 0.23, or the binary `NIMBUS_REFERENCE_MPD` names (an MPD 0.24 built by
    /// hand, to compare a differential test with the current release line).
    public static var mpdExecutable: String { ProcessInfo.processInfo.environment["NIMBUS_REFERENCE_MPD"] ?? "/usr/bin/mpd" }

    public static var mpdAvailable: Bool { FileManager.default.isExecutableFile(atPath: mpdExecutable) }

    /// Starts `kind` with `body` appended to a config that points every file into a fresh
    /// directory and listens on 127.0.0.1 (and `socket` inside the directory).
    /// `cpu` pins the daemon to one core (through taskset) so benchmarks compare like with like.
    /// `nullOutput`: whether the config starts with a paced `null` output (the default, so
    /// both daemons keep real time); `environment` is added to the daemon's environment
    /// (ALSA_CONFIG_PATH for the `file` plugin); `executable` runs another build of the daemon
    /// (the bench compares `make run`'s with `make deb`'s).
    public init(
        _ kind: Kind, config body: String = "", extraArguments: [String] = [], waitForReady: Bool = true, cpu: Int? = nil,
        musicDirectory: String? = nil, nullOutput: Bool = true, environment: [String: String] = [:], launchNow: Bool = true,
        executable: String? = nil
    ) throws {
        directory = TemporaryDirectory(kind == .nimbus ? "nimbus-daemon" : "mpd-reference")
        port = freePort()
        let music = musicDirectory ?? directory.path + "/music"
        try FileManager.default.createDirectory(atPath: music, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: directory.path + "/playlists", withIntermediateDirectories: true)
        let config = """
            music_directory "\(music)"
            playlist_directory "\(directory.path)/playlists"
            \(body.contains("database {") ? "" : "db_file \"\(directory.path)/database\"")
            state_file "\(directory.path)/state"
            \(kind == .nimbus && !body.contains("cache_directory") ? "cache_directory \"\(directory.path)/cache\"" : "")
            sticker_file "\(directory.path)/sticker.sql"
            log_file "\(directory.path)/log"
            bind_to_address "127.0.0.1"
            bind_to_address "\(directory.path)/socket"
            port "\(port)"
            zeroconf_enabled "no"
            \(kind == .nimbus && !body.contains("web {") ? "web {\n    enabled \"no\"\n}" : "")
            \(kind == .nimbus && !body.contains("resume_min_length") ? "resume_min_length \"0\"" : "")
            \(kind == .nimbus && !body.contains("loudness_analysis") ? "loudness_analysis \"no\"" : "")
            \(nullOutput ? "audio_output {\n    type \"null\"\n    name \"null\"\n}" : "")
            \(body)

            """
        configPath = directory.write("daemon.conf", config)
        outputPath = directory.file("stderr")
        _ = FileManager.default.createFile(atPath: outputPath, contents: nil)
        let arguments = ["--no-daemon"] + extraArguments + [configPath]
        let program = executable ?? kind.executable
        if let cpu {
            launchExecutable = "/usr/bin/taskset"
            launchArguments = ["-c", String(cpu), program] + arguments
        } else {
            launchExecutable = program
            launchArguments = arguments
        }
        self.environment = environment
        if launchNow { try launch(waitForReady: waitForReady) }
    }

    /// Starts a daemon made with `launchNow: false` (after the test prepared its files).
    public func start() throws { try launch(waitForReady: true) }

    private var environment: [String: String] = [:]

    private func launch(waitForReady: Bool) throws {
        process = Process()
        process.executableURL = URL(fileURLWithPath: launchExecutable)
        process.arguments = launchArguments
        if !environment.isEmpty {
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        }
        let output = FileHandle(forWritingAtPath: outputPath)
        output?.seekToEndOfFile()
        process.standardOutput = output
        process.standardError = output
        try process.run()
        if waitForReady {
            // A daemon starts in well under a second; the long bound is for a loaded CI machine
            // (a first exec of the debug binary once waited more than 10 s for the disk).
            guard waitUntil(timeout: 30, { (try? LineClient.connected(.tcp(host: "127.0.0.1", port: self.port))) != nil || !self.process.isRunning })
            else { throw LineClient.Failure(description: "daemon did not start: \(self.output)") }
            guard process.isRunning else { throw LineClient.Failure(description: "daemon exited: \(self.output)") }
        }
    }

    /// Starts the daemon again with the same config, port and files (after stop or a kill).
    public func restart() throws {
        stop()
        try launch(waitForReady: true)
    }

    deinit { stop() }

    public var endpoint: LineClient.Endpoint { .tcp(host: "127.0.0.1", port: port) }
    public var socketPath: String { directory.path + "/socket" }

    public var output: String { (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? "" }
    public var log: String { (try? String(contentsOfFile: directory.file("log"), encoding: .utf8)) ?? "" }

    /// Waits until the daemon's database holds `songs` songs and no update is running.
    public func waitForDatabase(songs: Int, timeout: Double = 60) throws {
        let ready = waitUntil(timeout: timeout) {
            guard let client = try? self.connect(), let stats = try? client.request("stats"),
                let status = try? client.request("status")
            else { return false }
            return stats.contains("songs: \(songs)") && !status.contains { $0.hasPrefix("updating_db") }
        }
        if !ready { throw LineClient.Failure(description: "database never reached \(songs) songs: \(log)") }
    }

    /// The 1-based line of the generated config that contains `text`.
    public func configLine(_ text: String) -> Int {
        let lines = ((try? String(contentsOfFile: configPath, encoding: .utf8)) ?? "").components(separatedBy: "\n")
        return (lines.firstIndex { $0.contains(text) } ?? -1) + 1
    }

    /// `timeout`: how long a read may wait (an `idle` that lasts a whole song needs more).
    public func connect(timeout: Double = 5) throws -> LineClient {
        try LineClient.connected(endpoint, timeout: timeout).0
    }

    /// Sends SIGTERM and waits for exit; returns the exit status.
    /// A daemon that ignores the signal for 10 seconds is killed (status -1), so a shutdown bug
    /// fails the test instead of hanging the suite.
    @discardableResult
    public func stop(signal number: Int32 = SIGTERM) -> Int32 {
        guard process.isRunning else { return process.terminationStatus }
        kill(process.processIdentifier, number)
        if !waitUntil(timeout: 10, { !self.process.isRunning }) {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            return -1
        }
        process.waitUntilExit()
        return process.terminationStatus
    }

    public func waitForExit(timeout: Double = 10) -> Int32? {
        guard waitUntil(timeout: timeout, { !process.isRunning }) else { return nil }
        return process.terminationStatus
    }
}
