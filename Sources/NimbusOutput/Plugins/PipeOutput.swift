import Glibc
import NimbusModel

/// MPD's `pipe` output: raw PCM into the standard input of `command` (run by `/bin/sh -c`,
/// started when playback opens the output and ended when it closes), in the configured
/// `format` or else the song's own — for an external DSP, encoder or player. Writes block as
/// the command reads, which paces playback as the command does; a command that exits fails
/// the output with its status, as any device that goes away.
public final class PipeOutput: AudioOutput {
    private let command: String
    private var child: pid_t = 0
    private var input: Int32 = -1

    public init(command: String) { self.command = command }

    deinit { close() }

    public func open(_ format: AudioFormat) throws(OutputError) -> AudioFormat {
        if input < 0 { try start() }
        return format
    }

    /// Through posix_spawn with the pipe's read end as the child's standard input and every
    /// other descriptor of the daemon closed (O_CLOEXEC), so the command holds no socket.
    private func start() throws(OutputError) {
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else { throw OutputError("pipe: \(String(cString: strerror(errno)))") }
        // Neither end may leak into other children; the command gets the read end as stdin.
        _ = fcntl(ends[0], F_SETFD, FD_CLOEXEC)
        _ = fcntl(ends[1], F_SETFD, FD_CLOEXEC)
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, ends[0], 0)
        let words: [String] = ["/bin/sh", "-c", command]
        let argv: [UnsafeMutablePointer<CChar>?] = words.map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var pid: pid_t = 0
        let result = posix_spawn(&pid, "/bin/sh", &actions, nil, argv, environ)
        Glibc.close(ends[0])
        guard result == 0 else {
            Glibc.close(ends[1])
            throw OutputError("Failed to start \"\(command)\": \(String(cString: strerror(result)))")
        }
        child = pid
        input = ends[1]
    }

    public func play(_ pcm: UnsafeRawBufferPointer) throws(OutputError) {
        var offset = 0
        while offset < pcm.count {
            let written = write(input, pcm.baseAddress! + offset, pcm.count - offset)
            if written < 0 {
                if errno == EINTR { continue }
                let reason = errno == EPIPE ? "the command exited (\(reap()))" : String(cString: strerror(errno))
                throw OutputError("Write error on pipe to \"\(command)\": \(reason)")
            }
            offset += written
        }
    }

    public func drain() {}
    public func cancel() {}
    public func pause() -> Bool { false }
    public func resume() {}

    /// The command sees the end of its input and is waited for, as MPD's pclose waits.
    public func close() {
        if input >= 0 {
            Glibc.close(input)
            input = -1
        }
        if child > 0 { _ = reap() }
    }

    /// Waits for the command and says how it ended.
    private func reap() -> String {
        guard child > 0 else { return "not running" }
        var status: Int32 = 0
        let pid = child
        child = 0
        guard waitpid(pid, &status, 0) == pid else { return "unknown status" }
        let signal = status & 0x7F
        return signal == 0 ? "status \((status >> 8) & 0xFF)" : "signal \(signal)"
    }

    public var delayFrames: Int { 0 }
}

/// `type "pipe"`: `command` (required), run by the shell with the PCM on its standard input.
public struct PipeOutputPlugin: OutputPlugin {
    public let type = "pipe"
    public init() {}

    public func configure(_ configuration: OutputConfiguration) throws(OutputError) -> OutputDefinition {
        guard let command = configuration.settings["command"], !command.isEmpty else {
            throw OutputError("No \"command\" parameter specified for pipe output \"\(configuration.name)\"")
        }
        return OutputDefinition { PipeOutput(command: command) }
    }
}
