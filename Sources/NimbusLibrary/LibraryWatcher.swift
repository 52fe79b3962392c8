import NimbusModel
import CLinux
import Glibc
import NimbusStorage
import NimbusSupport

/// `auto_update`: inotify watches on every library directory; changes queue an update of the
/// directory that changed, one second after the last event (a copy of an album is one update,
/// not one per file), as MPD's inotify support does.
@CoreActor
public final class LibraryWatcher {
    private let library: MusicLibrary
    private let root: String
    private let depth: Int?
    private let logger: Logger
    private let reactor: Reactor
    private let fd: Int32
    private var paths: [Int32: String] = [:]
    private var pending = Set<String>()
    private var timer: TimerID?

    static let mask = UInt32(IN_CLOSE_WRITE | IN_DELETE | IN_MOVED_FROM | IN_MOVED_TO | IN_CREATE | IN_DELETE_SELF | IN_MOVE_SELF)

    public init?(library: MusicLibrary, root: String, depth: Int?, logger: Logger, reactor: Reactor = CoreActor.loop.reactor) {
        let fd = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
        guard fd >= 0 else {
            logger.error(SystemError("inotify_init1").description)
            return nil
        }
        self.fd = fd
        self.library = library
        self.root = root
        self.depth = depth
        self.logger = logger
        self.reactor = reactor
        do {
            try reactor.watch(fd: fd, interest: .read) { [unowned self] _ in self.readEvents() }
        } catch {
            logger.error(error.description)
            close(fd)
            return nil
        }
        refresh()
    }

    /// Adds watches for every directory of the current database (new ones after an update).
    public func refresh() {
        watch("", level: 0)
        library.database.visit("", recursive: true, directory: { path, _ in
            let level = path.split(separator: "/").count
            if self.depth.map({ level <= $0 }) ?? true { self.watch(path, level: level) }
        }, song: { _, _ in })
    }

    private func watch(_ path: String, level: Int) {
        let absolute = path.isEmpty ? root : root + "/" + path
        let descriptor = inotify_add_watch(fd, absolute, Self.mask)
        if descriptor >= 0 { paths[descriptor] = path }
    }

    private func readEvents() {
        var buffer = [UInt8](repeating: 0, count: 16384)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress!, $0.count) }
            if count <= 0 { break }
            var offset = 0
            while offset + MemoryLayout<inotify_event>.size <= count {
                let (descriptor, eventMask, nameLength) = buffer.withUnsafeBytes { raw -> (Int32, UInt32, Int) in
                    let event = raw.load(fromByteOffset: offset, as: inotify_event.self)
                    return (event.wd, event.mask, Int(event.len))
                }
                let nameBytes = buffer[(offset + MemoryLayout<inotify_event>.size)..<(offset + MemoryLayout<inotify_event>.size + nameLength)]
                let name = String(decoding: nameBytes.prefix { $0 != 0 }, as: UTF8.self)
                offset += MemoryLayout<inotify_event>.size + nameLength
                if eventMask & UInt32(IN_IGNORED) != 0 {
                    paths[descriptor] = nil
                    continue
                }
                guard let directory = paths[descriptor], !name.hasPrefix(".") else { continue }
                // A new or moved-in directory is updated as a whole; a file change updates its folder.
                let isDirectory = eventMask & UInt32(IN_ISDIR) != 0
                pending.insert(isDirectory ? StoragePath.join(directory, name) : directory)
            }
        }
        guard !pending.isEmpty else { return }
        if let timer { reactor.cancel(timer) }
        timer = reactor.schedule(after: .seconds(1)) { [unowned self] in self.flush() }
    }

    private func flush() {
        timer = nil
        // Drop paths below another pending path: updating the parent covers them.
        let sorted = pending.sorted { $0.count < $1.count }
        var chosen: [String] = []
        for path in sorted where !chosen.contains(where: { $0.isEmpty || path == $0 || path.hasPrefix($0 + "/") }) {
            chosen.append(path)
        }
        pending.removeAll()
        for path in chosen {
            logger.info("auto_update: \(path.isEmpty ? "music directory" : path) changed")
            _ = try? library.update(path)
        }
    }
}
