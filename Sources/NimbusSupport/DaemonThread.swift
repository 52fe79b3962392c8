import CLinux
import Foundation

/// Starts the daemon's own threads under a name the kernel knows. Foundation's `Thread.name`
/// on Linux stays inside Foundation, so `top -H`, `ps -L`, `perf` and `/proc/PID/task/*/comm`
/// all showed "nimbusd" for every thread; a box owner looking for the thread that burns a
/// core could not tell the decoder from a library scan. The name is set by the thread itself
/// on entry, cut to the kernel's 15 bytes.
public enum DaemonThread {
    /// The kernel's limit: 16 bytes with the terminating zero.
    public static let nameLimit = 15

    /// Runs `body` on a new thread named `name`, at `priority` when given (set by the thread
    /// on entry, before `body`: a priority set inside a job would stay with whatever thread
    /// ran it), with a stack of `stackSize` bytes when given (else the platform's default).
    /// The thread is returned for a caller that keeps it as its "already started" mark.
    @discardableResult
    public static func start(
        name: String, priority: ThreadPriority? = nil, stackSize: Int? = nil, _ body: @escaping @Sendable () -> Void
    ) -> Thread {
        let thread = Thread {
            nameCurrentThread(name)
            priority?.applyToCurrentThread()
            body()
        }
        thread.name = name
        if let stackSize { thread.stackSize = stackSize }
        thread.start()
        return thread
    }

    /// Names the calling thread for the kernel; a longer name keeps its first 15 bytes (cut
    /// on a character boundary, so a UTF-8 name never ends in half a character).
    static func nameCurrentThread(_ name: String) {
        _ = clinux_name_thread(kernelName(name))
    }

    /// The name as the kernel will hold it.
    public static func kernelName(_ name: String) -> String {
        var result = ""
        for character in name {
            if result.utf8.count + String(character).utf8.count > nameLimit { break }
            result.append(character)
        }
        return result
    }
}
