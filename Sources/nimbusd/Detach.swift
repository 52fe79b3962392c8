import Foundation
import Glibc
import NimbusSupport

/// MPD's start-up for people who type `mpd` in a shell: the daemon detaches from the terminal,
/// the shell gets its prompt back once the daemon is *ready* (sockets bound, or the error
/// printed and a failing exit status), and `pid_file` names it for `--kill`. Under systemd,
/// from scripts and tests (stdin not a terminal) and with `--no-daemon` it stays in the foreground.
enum Detach {
    /// The write end the detached child reports readiness on; -1 when not detached.
    nonisolated(unsafe) private static var readyPipe: Int32 = -1
    nonisolated(unsafe) private static var closeStandardErrorWhenReady = false

    static func shouldDetach(_ options: CommandLineOptions, environment: [String: String]) -> Bool {
        options.daemon && isatty(STDIN_FILENO) == 1 && environment["INVOCATION_ID"] == nil
            && environment["LISTEN_FDS"] == nil && environment["NOTIFY_SOCKET"] == nil
    }

    /// Forks before any thread exists and before the log file is opened (every other inherited
    /// descriptor is closed). The parent waits for `ready()` and exits 0, or exits
    /// with the child's status when start-up failed; the child continues in a new session.
    static func begin(keepStandardError: Bool) {
        var fds: [Int32] = [-1, -1]
        guard pipe(&fds) == 0 else { return }
        let child = fork()
        if child < 0 { return }
        if child > 0 {
            close(fds[1])
            var byte: UInt8 = 0
            if read(fds[0], &byte, 1) == 1 { exit(0) }
            var status: Int32 = 0
            waitpid(child, &status, 0)
            exit((status & 0x7f) == 0 ? (status >> 8) & 0xff : 1)
        }
        close(fds[0])
        readyPipe = fds[1]
        setsid()
        // Whatever the starting program left open (a pipe, a socket) must not be held for the
        // daemon's lifetime: a caller waiting for end-of-file would wait forever.
        let inherited = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        for fd in inherited.compactMap(Int32.init) where fd > STDERR_FILENO && fd != readyPipe {
            close(fd)
        }
        let null = open("/dev/null", O_RDWR)
        if null >= 0 {
            dup2(null, STDIN_FILENO)
            dup2(null, STDOUT_FILENO)
            if null > STDERR_FILENO { close(null) }
        }
        // Standard error stays the terminal until the daemon is ready, so a start-up error
        // reaches the user who typed the command.
        closeStandardErrorWhenReady = !keepStandardError
    }

    /// Tells the waiting parent the daemon is up.
    static func ready() {
        guard readyPipe >= 0 else { return }
        var byte: UInt8 = 1
        _ = write(readyPipe, &byte, 1)
        close(readyPipe)
        readyPipe = -1
        if closeStandardErrorWhenReady {
            let null = open("/dev/null", O_WRONLY)
            if null >= 0 {
                dup2(null, STDERR_FILENO)
                close(null)
            }
        }
    }
}

/// `pid_file` (MPD's): the running daemon's process id, written atomically once it is ready and
/// removed at a clean shutdown; `nimbusd --kill` sends SIGTERM to the process it names.
enum PidFile {
    static func write(_ path: String) throws(SystemError) {
        try AtomicFile.write(Array("\(getpid())\n".utf8), to: path)
    }

    static func remove(_ path: String?) {
        if let path { unlink(path) }
    }

    /// MPD's `daemonize_kill`, with its messages.
    static func kill(_ path: String?) -> Result<Int32, DomainError<CommandLineOptions>> {
        guard let path else { return .failure(.init("Cannot kill MPD - no pid_file specified")) }
        guard let text = try? String(contentsOfFile: path, encoding: .utf8),
            let pid = Int32(text.trimmingCharacters(in: .whitespacesAndNewlines)), pid > 0
        else { return .failure(.init("Unable to read the pid from file \"\(path)\"")) }
        guard Glibc.kill(pid, SIGTERM) == 0 else {
            return .failure(.init("unable to kill process \(pid): \(String(cString: strerror(errno)))"))
        }
        return .success(pid)
    }
}
