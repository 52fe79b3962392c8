import Foundation
import NimbusDecoder
import NimbusModel
import NimbusStorage
import NimbusSupport

/// The library as the core sees it: the current database snapshot and the update jobs.
///
/// Updates run one at a time on their own thread (which fans tag scanning out to worker
/// threads); the finished tree is saved atomically there and then installed here in one
/// step, so clients see the old or the new database, never a mix.
@CoreActor
public final class MusicLibrary {
    public struct UpdateQueueFull: Error {}

    public private(set) var database: Database
    public let storage: any Storage
    public let registry: DecoderRegistry
    private let databasePath: String?
    private let musicDirectory: String
    private let logger: Logger
    private var queue: [Job] = []
    private var running: Job?
    private var nextJobID = 1
    /// Raises `update` (a job started or finished) and `database` (the tree changed).
    public var onEvents: @CoreActor (IdleEvents) -> Void = { _ in }
    /// Called after a new database is installed (so the queue can refresh its songs).
    public var onInstalled: @CoreActor (Database) -> Void = { _ in }

    /// MPD queues at most this many update requests.
    public static let maximumQueuedJobs = 32

    struct Job {
        let id: Int
        let path: String
        let rescan: Bool
    }

    public init(
        storage: any Storage, registry: DecoderRegistry, musicDirectory: String, databasePath: String?, logger: Logger
    ) {
        self.storage = storage
        self.registry = registry
        self.musicDirectory = musicDirectory
        self.databasePath = databasePath
        self.logger = logger
        self.database = .empty
    }

    /// Loads the saved database; false when there was none (or it was unusable), in which
    /// case the caller starts a full update as MPD does.
    public func load() -> Bool {
        guard let databasePath else { return false }
        removeStaleTemporaryFiles(of: databasePath)
        do {
            guard let bytes = try AtomicFile.read(databasePath) else { return false }
            let (header, loaded) = try DatabaseCodec.decode(bytes)
            guard header.musicDirectory == musicDirectory else {
                logger.notice("music_directory changed; rebuilding the database")
                return false
            }
            database = loaded
            logger.info("database loaded: \(loaded.statistics.songs) songs")
            Heap.returnFreeMemory()
            return true
        } catch {
            logger.error("Failed to load the database \"\(databasePath)\": \(error); rebuilding it")
            return false
        }
    }

    /// A crash during a save leaves `database.tmp.PID` behind; the real file is intact.
    private func removeStaleTemporaryFiles(of path: String) {
        AtomicFile.removeLeftovers(inDirectory: (path as NSString).deletingLastPathComponent)
    }

    /// The id of the running job, shown as `updating_db` in status.
    public var updatingJobID: Int? { running?.id }

    /// Queues an update of `path` (`""` for everything) and returns its job id.
    @discardableResult
    public func update(_ path: String, rescan: Bool = false) throws(UpdateQueueFull) -> Int {
        guard queue.count < Self.maximumQueuedJobs else { throw UpdateQueueFull() }
        let job = Job(id: nextJobID, path: path, rescan: rescan)
        nextJobID = nextJobID >= Int(Int32.max) ? 1 : nextJobID + 1
        queue.append(job)
        startNextJob()
        return job.id
    }

    private func startNextJob() {
        guard running == nil, !queue.isEmpty else { return }
        let job = queue.removeFirst()
        running = job
        onEvents(.update)
        logger.info("update job \(job.id) started (\(job.path.isEmpty ? "everything" : job.path))")
        let walk = UpdateWalk(
            storage: storage, registry: registry, logger: logger, rescan: job.rescan,
            threads: max(2, WorkerThreads.processorCount))
        let old = database
        let databasePath = self.databasePath, musicDirectory = self.musicDirectory, logger = self.logger
        // MPD runs its update at idle priority; here it ranks below the decoder too, so a
        // scan of a whole library never delays a client's answer or the music.
        DaemonThread.start(name: "update", priority: .background) {
            // The scanned tree lives only until it is encoded: freed before the compact copy is
            // read back, its pages are reused by that copy instead of staying behind half used.
            let (changed, bytes): (Bool, [UInt8]) = {
                let root = walk.run(old: old.root, path: job.path)
                // A rescan reads every song again, and MPD counts each as modified: `database`
                // fires even when the tags came out the same (an `update` that finds nothing
                // new stays silent).
                guard root != old.root || (job.rescan && old.root.hasSongs(at: job.path)) else { return (false, []) }
                let scanned = Database(root: root, updated: Int64(Date().timeIntervalSince1970))
                return (true, DatabaseCodec.encode(scanned, musicDirectory: musicDirectory))
            }()
            var installed = old
            if changed {
                if let databasePath {
                    do {
                        try AtomicFile.write(bytes, to: databasePath)
                    } catch {
                        logger.error("Failed to save the database: \(error)")
                    }
                }
                // The tree as a start-up loads it: each tag value stored once however many
                // songs share it (the scan made one string per tag per song). A 50,000-song
                // update kept 55 MB of private memory before, as a loaded database does now.
                do {
                    installed = try DatabaseCodec.decode(bytes).1
                } catch {
                    logger.error("the updated database could not be read back (\(error)); keeping the previous one")
                }
            }
            let result = installed
            Task { @CoreActor in self.finish(job, database: result, changed: changed) }
        }
    }

    private func finish(_ job: Job, database installed: Database, changed: Bool) {
        running = nil
        if changed {
            database = installed
            onInstalled(installed)
            onEvents([.database, .update])
        } else {
            onEvents(.update)
        }
        logger.info("update job \(job.id) finished\(changed ? "" : " (nothing changed)")")
        // The scan's garbage (tags read, the old tree) is free now: give its pages back.
        Heap.returnFreeMemory()
        startNextJob()
    }

    /// Replaces the database directly (tests and benchmarks).
    public func install(_ replacement: Database) {
        database = replacement
        onInstalled(replacement)
    }
}
