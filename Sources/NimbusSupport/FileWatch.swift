import Foundation
import CLinux
import Glibc
import Synchronization

/// Calls back when one of some files is created, replaced, written or removed: inotify
/// watches on their folders, read by one thread that sleeps in `poll` until the kernel has
/// news (no polling of the files). Used for the files a person changes behind the daemon's
/// back: a token file a sign-in wrote or a sign-out removed.
public final class FileWatch: Sendable {
    private let notify: Int32
    /// Written by `stop` to end the thread's wait.
    private let stopper: Int32
    private let stopped = Atomic(false)

    /// Nil when inotify is unavailable (the files are then only looked at when used).
    public init?(files: [String], name: String, onChange: @escaping @Sendable (_ path: String) -> Void) {
        let notify = inotify_init1(Int32(IN_CLOEXEC | IN_NONBLOCK))
        guard notify >= 0 else { return nil }
        let stopper = eventfd(0, Int32(EFD_CLOEXEC))
        guard stopper >= 0 else {
            close(notify)
            return nil
        }
        self.notify = notify
        self.stopper = stopper
        var folders: [Int32: String] = [:]
        let wanted = Set(files)
        for folder in Set(files.map { ($0 as NSString).deletingLastPathComponent }) {
            try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            let mask = UInt32(IN_CREATE | IN_CLOSE_WRITE | IN_DELETE | IN_MOVED_FROM | IN_MOVED_TO)
            let descriptor = inotify_add_watch(notify, folder, mask)
            if descriptor >= 0 { folders[descriptor] = folder }
        }
        DaemonThread.start(name: name) { [notify, stopper, folders] in
            Self.run(notify: notify, stopper: stopper, folders: folders, wanted: wanted, onChange: onChange)
        }
    }

    /// Ends the watch (its thread closes the descriptors).
    public func stop() {
        guard !stopped.exchange(true, ordering: .acquiringAndReleasing) else { return }
        var one: UInt64 = 1
        _ = write(stopper, &one, 8)
    }

    private static func run(
        notify: Int32, stopper: Int32, folders: [Int32: String], wanted: Set<String>, onChange: @Sendable (String) -> Void
    ) {
        defer {
            close(notify)
            close(stopper)
        }
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            var descriptors = [pollfd(fd: notify, events: Int16(POLLIN), revents: 0), pollfd(fd: stopper, events: Int16(POLLIN), revents: 0)]
            guard poll(&descriptors, 2, -1) >= 0 || errno == EINTR else { return }
            if descriptors[1].revents != 0 { return }
            let count = buffer.withUnsafeMutableBytes { read(notify, $0.baseAddress!, $0.count) }
            guard count > 0 else { continue }
            var changed = Set<String>()
            var offset = 0
            let header = MemoryLayout<inotify_event>.size
            while offset + header <= count {
                let (descriptor, length) = buffer.withUnsafeBytes { raw -> (Int32, Int) in
                    let event = raw.load(fromByteOffset: offset, as: inotify_event.self)
                    return (event.wd, Int(event.len))
                }
                let name = String(decoding: buffer[(offset + header)..<(offset + header + length)].prefix { $0 != 0 }, as: UTF8.self)
                offset += header + length
                if let folder = folders[descriptor], wanted.contains(folder + "/" + name) { changed.insert(folder + "/" + name) }
            }
            for path in changed.sorted() { onChange(path) }
        }
    }
}
