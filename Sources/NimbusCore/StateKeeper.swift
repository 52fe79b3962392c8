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
    private var lastWritten: String?
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
    public func read() -> [SavedState]? {
        do {
            guard let bytes = try AtomicFile.read(path) else { return nil }
            return StateFileCodec.decodePartitions(String(decoding: bytes, as: UTF8.self))
        } catch {
            logger.error("state_file: \(error)")
            return nil
        }
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
        let text = StateFileCodec.encode(partitions().map { $0.savedState() })
        guard text != lastWritten else { return }
        lastWritten = text
        let path = path
        let logger = logger
        let write: @Sendable () -> Void = {
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
