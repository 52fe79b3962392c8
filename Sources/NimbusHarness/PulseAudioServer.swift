import Foundation

/// A private PulseAudio server for the output tests: Debian's `pulseaudio` without its default
/// script (`-n`), listening only on a Unix socket in a temporary folder, with null sinks whose
/// monitors `parec` records — what a desktop's sound server sees, without touching one.
public final class PulseAudioServer {
    public let directory = TemporaryDirectory("nimbus-pulse")
    private var process = Process()
    /// For libpulse's `server` setting and `pactl -s`.
    public var address: String { "unix:" + directory.file("native") }

    public static var available: Bool {
        FileManager.default.isExecutableFile(atPath: "/usr/bin/pulseaudio") && FileManager.default.isExecutableFile(atPath: "/usr/bin/pactl")
    }

    /// `sinks`: name and rate of each null sink (16-bit stereo).
    public init(sinks: [(name: String, rate: Int)]) throws {
        try FileManager.default.createDirectory(atPath: directory.file("run"), withIntermediateDirectories: true)
        try start(sinks: sinks)
    }

    private func start(sinks: [(name: String, rate: Int)]) throws {
        process = Process()
        // pulseaudio closes every descriptor it inherits, Foundation's child-watching socket
        // too, after which Foundation's monitor thread blocks in waitpid for it and no other
        // child's exit is ever seen. A shell that keeps the socket and forwards SIGTERM sits
        // in between.
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        let script = "/usr/bin/pulseaudio \"$@\" & child=$!; trap 'kill $child; wait $child; exit 0' TERM; wait $child"
        process.arguments = ["-c", script, "pulseaudio",
            "--daemonize=no", "-n", "--exit-idle-time=-1", "--use-pid-file=no", "--disable-shm=yes", "--log-target=stderr",
            "-L", "module-native-protocol-unix socket=\(directory.file("native")) auth-anonymous=1",
        ] + sinks.flatMap { ["-L", "module-null-sink sink_name=\($0.name) rate=\($0.rate) format=s16le channels=2"] }
        process.environment = ["HOME": directory.path, "XDG_RUNTIME_DIR": directory.file("run"), "PATH": "/usr/bin:/bin"]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle(forWritingAtPath: directory.write("log", ""))
        try process.run()
        guard waitUntil({ (try? self.pactl(["list", "short", "sinks"]))?.contains(sinks.last?.name ?? "") == true }) else {
            throw LineClient.Failure(description: "pulseaudio did not start: \(log)")
        }
    }

    deinit { stop() }

    public var log: String { (try? String(contentsOfFile: directory.file("log"), encoding: .utf8)) ?? "" }

    public func stop() {
        guard process.isRunning else { return }
        process.terminate()
        process.waitUntilExit()
    }

    /// Stops the server and starts it again on the same socket (a sound server restarted).
    public func restart(sinks: [(name: String, rate: Int)]) throws {
        stop()
        try start(sinks: sinks)
    }

    public func pactl(_ arguments: [String]) throws -> String {
        try runTool("/usr/bin/pactl", ["-s", address] + arguments)
    }

    /// Records a sink's monitor as raw 16-bit stereo at `rate` into `path` until stopped.
    public func record(sink: String, rate: Int, to path: String) throws -> Process {
        let recorder = Process()
        recorder.executableURL = URL(fileURLWithPath: "/usr/bin/parec")
        recorder.arguments = [
            "-s", address, "-d", sink + ".monitor", "--raw", "--format=s16le", "--rate=\(rate)", "--channels=2", "--latency-msec=20",
        ]
        _ = FileManager.default.createFile(atPath: path, contents: nil)
        recorder.standardOutput = FileHandle(forWritingAtPath: path)
        recorder.standardError = FileHandle.nullDevice
        try recorder.run()
        return recorder
    }
}
