import Foundation
import Glibc
import Synchronization

/// The terminal the user signs in at: instructions on stdout, a waiting indicator and errors
/// on stderr, a password read without echo, Ctrl-C turned into a polite end.
enum Console {
    static func say(_ text: String) {
        FileHandle.standardOutput.write(Data((text + "\n").utf8))
    }

    /// A problem that does not end the run.
    static func warn(_ message: String) {
        FileHandle.standardError.write(Data("nimbus: \(message)\n".utf8))
    }

    static func fail(_ message: String, code: Int32 = 1) -> Never {
        FileHandle.standardError.write(Data("nimbus: \(message)\n".utf8))
        exit(code)
    }

    static var isTerminal: Bool { isatty(STDIN_FILENO) == 1 }

    /// One line from stdin; without echo when stdin is a terminal.
    static func readSecret(prompt: String) -> String? {
        FileHandle.standardError.write(Data(prompt.utf8))
        var saved = termios()
        let terminal = isTerminal && tcgetattr(STDIN_FILENO, &saved) == 0
        if terminal {
            var quiet = saved
            quiet.c_lflag &= ~tcflag_t(ECHO)
            tcsetattr(STDIN_FILENO, TCSANOW, &quiet)
        }
        defer {
            if terminal {
                tcsetattr(STDIN_FILENO, TCSANOW, &saved)
                FileHandle.standardError.write(Data("\n".utf8))
            }
        }
        return readLine(strippingNewline: true)
    }

    // MARK: Ctrl-C

    private static let interrupted = Atomic<Bool>(false)

    static var wasInterrupted: Bool { interrupted.load(ordering: .relaxed) }

    static func catchInterrupt() {
        signal(SIGINT) { _ in Console.interrupted.store(true, ordering: .relaxed) }
    }

    /// Sleeps `seconds` in small steps, showing a dot a second on a terminal; false once the
    /// user pressed Ctrl-C.
    static func wait(_ seconds: Double, dots: Bool = true) -> Bool {
        var left = seconds
        while left > 0 {
            if interrupted.load(ordering: .relaxed) { return false }
            let step = min(left, 0.1)
            usleep(useconds_t(step * 1_000_000))
            left -= step
        }
        if dots, isatty(STDERR_FILENO) == 1 { FileHandle.standardError.write(Data(".".utf8)) }
        return !interrupted.load(ordering: .relaxed)
    }
}
