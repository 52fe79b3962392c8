import Dispatch
import NimbusModel
import NimbusSupport

/// Keeps the state file current: a change (queue, options, current song, pause, seek,
/// volume, outputs) is written a second later, coalesced; while playing the position is
/// refreshed every `interval` (MPD's `state_file_interval`), so a kill -9 loses at most that
/// much of it. Writes are atomic and happen on a serial background queue, because fsync can
/// stall for a long time on an SD card and the core loop must never wait for it.
@CoreActor
public final class StateKeeper {
    public let path: String
    /// The partitions to save, the default one first.
    private let partitions: @CoreActor () -> [Partition]
    private let logger: Logger
    private let interval: Duration
    private let debounce: Duration
    private var pending: TimerID?
    private var periodic: TimerID?
    /// A digest of the text last written, touched on the writer queue only: a pause that
    /// changes nothing else writes nothing, and the text itself (megabytes for a long queue)
    /// is not kept.
    private let lastWritten = WriterConfined<Digest?>(nil)
    /// A damaged file as it was found, saved beside it before the first write replaces it.
    private var corruptCopy: [UInt8]?
    /// False until the saved state was restored: saving earlier would replace it with nothing.
    private var active = false
    private let writer = DispatchQueue(label: "nimbus-state-file")

    public init(
        path: String, logger: Logger, interval: Duration = .seconds(120), debounce: Duration = .seconds(1),
        partitions: @escaping @CoreActor () -> [Partition]
    ) {
        self.path = path
        self.partitions = partitions
        self.logger = logger
        self.interval = interval
        self.debounce = debounce
    }

    /// Reads the state file (every partition, the default first); nil when there is none.
    /// A damaged file is read as far as it goes and named in the log, and a copy of it is
    /// kept as `STATE.corrupt` before the first save replaces it.
    public func read() -> [SavedState]? {
        let bytes: [UInt8]
        do {
            guard let read = try AtomicFile.read(path) else { return nil }
            bytes = read
        } catch {
            logger.error("state file \(path) cannot be read (\(error)); starting with an empty queue")
            return nil
        }
        let states = StateFileCodec.decodePartitions(String(decoding: bytes, as: UTF8.self))
        if let problem = StateFileCheck.firstProblem(in: bytes) {
            corruptCopy = bytes
            let kept = states.contains { !$0.entries.isEmpty } ? "kept what could be read" : "starting with an empty queue"
            let place = problem.line > 0 ? " at line \(problem.line)" : ""
            logger.error("state file \(path) unreadable\(place) (\(problem.reason)); \(kept); a copy goes to \(path).corrupt")
        }
        return states
    }

    /// Begins saving (after the restore).
    public func start() {
        active = true
        schedulePeriodic()
    }

    /// Something worth persisting changed.
    public func changed() {
        guard active, pending == nil else { return }
        pending = CoreActor.loop.reactor.schedule(after: debounce) { [weak self] in
            self?.pending = nil
            self?.save(synchronously: false)
        }
    }

    private func schedulePeriodic() {
        periodic = CoreActor.loop.reactor.schedule(after: interval) { [weak self] in
            guard let self else { return }
            if self.partitions().contains(where: { $0.state != .stop }) { self.save(synchronously: false) }
            self.schedulePeriodic()
        }
    }

    /// Writes now if anything differs from the file; synchronous at shutdown.
    public func save(synchronously: Bool) {
        guard active else { return }
        let snapshots = partitions().map { $0.stateSnapshot() }
        let path = path
        let logger = logger
        let corrupt = corruptCopy
        corruptCopy = nil
        let lastWritten = lastWritten
        let write: @Sendable () -> Void = {
            let text = StateFileCodec.encode(
                snapshots.map { snapshot in
                    var state = snapshot.state
                    state.entries = Partition.entries(of: snapshot.items)
                    return state
                })
            let digest = Digest(text)
            guard corrupt != nil || digest != lastWritten.value else { return }
            lastWritten.value = digest
            if let corrupt {
                do {
                    try AtomicFile.write(corrupt, to: path + ".corrupt")
                } catch {
                    logger.error("Failed to keep a copy of the damaged state file: \(error)")
                }
            }
            do {
                try AtomicFile.write(Array(text.utf8), to: path)
            } catch {
                logger.error("Failed to save state: \(error)")
            }
        }
        if synchronously {
            if let pending { CoreActor.loop.reactor.cancel(pending) }
            pending = nil
            writer.sync(execute: write)
        } else {
            writer.async(execute: write)
        }
    }
}

/// A value only the state keeper's serial writer queue reads and writes.
private final class WriterConfined<Value>: @unchecked Sendable {
    var value: Value
    init(_ value: Value) { self.value = value }
}

/// Length and 64-bit FNV-1a of a text: enough to tell a state file from the last one written.
private struct Digest: Equatable {
    let count: Int
    let hash: UInt64

    init(_ text: String) {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        var count = 0
        for byte in text.utf8 {
            hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3
            count += 1
        }
        self.count = count
        self.hash = hash
    }
}
