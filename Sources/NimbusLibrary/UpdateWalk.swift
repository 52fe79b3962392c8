import Glibc
import NimbusCue
import NimbusDecoder
import NimbusModel
import NimbusStorage
import NimbusSupport
import Synchronization

/// Compares the storage with the previous tree and builds the next one, scanning only files
/// that are new or whose modification time changed (all files when `rescan`). Scanning runs
/// on several threads; the walk itself is sequential so orders stay deterministic.
struct UpdateWalk {
    let storage: any Storage
    let registry: DecoderRegistry
    let logger: Logger
    let rescan: Bool
    let threads: Int

    private final class Plan: @unchecked Sendable {
        // Invariant: slot i of `results` is written by exactly one worker (the one that
        // claimed i) and read only after WorkerThreads.run returned. The slots live in one
        // fixed buffer, not a Swift array, whose element writes from several threads would
        // race on the array itself (ThreadSanitizer found it).
        /// Files to scan, with the time each entered the database (kept when it changed).
        var tasks: [(path: String, entry: StorageEntry, added: Int64?)] = []
        private(set) var results = UnsafeMutableBufferPointer<LibrarySong?>(start: nil, count: 0)
        /// Slot i: whether file i carries a CUE sheet of its own (same rule as `results`).
        private(set) var embeddedCues = UnsafeMutableBufferPointer<Bool>(start: nil, count: 0)
        /// Read and written only by the sequential walk, after the workers are done.
        var pool = TagValuePool()

        func prepareResults() {
            results.deinitialize()
            results.deallocate()
            results = .allocate(capacity: tasks.count)
            results.initialize(repeating: nil)
            embeddedCues.deallocate()
            embeddedCues = .allocate(capacity: tasks.count)
            embeddedCues.initialize(repeating: false)
        }

        deinit {
            results.deinitialize()
            results.deallocate()
            embeddedCues.deallocate()
        }
    }

    private enum PendingSong {
        case ready(LibrarySong)
        case scan(Int)
    }

    private struct PendingDirectory {
        var name: String
        var modified: Int64
        var identity: FileIdentity?
        /// What the database had here, handed back as it is when nothing below changed.
        var old: LibraryDirectory?
        var songs: [PendingSong] = []
        var directories: [PendingDirectory] = []
        var playlists: [LibraryPlaylist] = []
        /// CUE sheets of the folder, read; their virtual folders are made once the songs they
        /// point into are scanned.
        var cues: [PendingCue] = []
        /// A folder that could not be listed (a cloud account offline) stays as it was.
        var kept: LibraryDirectory?
    }

    static let maximumDepth = 32

    /// Updates the subtree at `path` (`""` for everything) and returns the new root.
    func run(old root: LibraryDirectory, path: String) -> LibraryDirectory {
        let plan = Plan()
        var newRoot = root
        if path.isEmpty {
            let rootEntry = try? storage.stat("")
            let pending = walk(old: root, path: "", name: "", entry: rootEntry, ancestors: [], ignores: IgnoreList(), plan: plan)
            scan(plan)
            newRoot = materialize(pending, plan: plan) ?? LibraryDirectory(name: "")
            newRoot.name = ""
        } else {
            let entry: StorageEntry?
            do {
                entry = try storage.stat(path)
            } catch where error.kind == .notFound {
                logger.info("\(path): \(error.message); removing it from the database")
                entry = nil
            } catch {
                logger.error("\(path): \(error.message); keeping it as it was")
                return root
            }
            newRoot = replace(in: root, path: path, entry: entry, plan: plan)
        }
        return newRoot
    }

    private func replace(in root: LibraryDirectory, path: String, entry: StorageEntry?, plan: Plan) -> LibraryDirectory {
        let components = path.split(separator: "/").map(String.init)
        // The patterns of every `.mpdignore` above: an ignored name updated by path is gone.
        let ignores = IgnoreList.inherited(at: components.dropLast().joined(separator: "/"), storage: storage, logger: logger)
        var entry = entry
        if let name = components.last, ignores.excludes(name) {
            logger.info("Skipping \"\(path)\": listed in \(IgnoreList.fileName)")
            entry = nil
        }
        return replace(in: root, components: components[...], prefix: "", entry: entry, ignores: ignores, plan: plan)
            ?? LibraryDirectory(name: "")
    }

    /// Rebuilds one directory along the path to the updated item; nil means "now empty".
    private func replace(
        in directory: LibraryDirectory, components: ArraySlice<String>, prefix: String, entry: StorageEntry?, ignores: IgnoreList,
        plan: Plan
    ) -> LibraryDirectory? {
        var directory = directory
        let name = components.first!
        let childPath = StoragePath.join(prefix, name)
        if components.count == 1 {
            directory.songs.removeAll { $0.hasName(name) && entry?.kind != .file }
            directory.playlists.removeAll { $0.name == name }
            if let entry, entry.kind == .file, LibraryPlaylist.isPlaylist(name) {
                directory.playlists.append(LibraryPlaylist(name: name, modified: entry.modified))
            }
            if let entry, entry.kind == .file, registry.supports(name) {
                plan.tasks = [(childPath, entry, directory.songs.first { $0.hasName(name) }?.added)]
                scan(plan)
                if let scanned = plan.results[0] {
                    if plan.embeddedCues[0] { directory.playlists.append(LibraryPlaylist(name: name, modified: .min)) }
                    let song = plan.pool.kept(scanned)
                    if let index = directory.songs.firstIndex(where: { $0.hasName(name) }) {
                        directory.songs[index] = song
                    } else {
                        directory.songs.append(song)
                    }
                } else {
                    directory.songs.removeAll { $0.hasName(name) }
                }
            }
            let old = directory.directory(named: name)
            directory.directories.removeAll { $0.name == name }
            if let entry, entry.kind == .directory {
                let pending = walk(old: old, path: childPath, name: name, entry: entry, ancestors: [], ignores: ignores, plan: plan)
                scan(plan)
                if let updated = materialize(pending, plan: plan) { directory.directories.append(updated) }
            }
        } else {
            let old = directory.directory(named: name) ?? LibraryDirectory(name: name)
            directory.directories.removeAll { $0.name == name }
            if var updated = replace(in: old, components: components.dropFirst(), prefix: childPath, entry: entry, ignores: ignores, plan: plan) {
                if updated.modified == 0, let stat = try? storage.stat(childPath) { updated.modified = stat.modified }
                directory.directories.append(updated)
            }
        }
        directory.sortContents()
        return directory.isEmpty && !prefix.isEmpty ? nil : directory
    }

    private func walk(
        old: LibraryDirectory?, path: String, name: String, entry: StorageEntry?, ancestors: [FileIdentity], ignores inherited: IgnoreList,
        plan: Plan
    ) -> PendingDirectory {
        var pending = PendingDirectory(name: name, modified: entry?.modified ?? 0, identity: entry?.identity, old: old)
        var entries: [StorageEntry]
        do {
            entries = try storage.list(path) { logger.info($0) }
        } catch {
            logger.error("Failed to list \"\(path)\": \(error.message)")
            // Unreachable is not deleted: keep what the database had (never an empty folder
            // because a server was down).
            if error.kind != .notFound, let old { pending.kept = old }
            return pending
        }
        let ignores = inherited.adding(
            folder: path, storage: storage, listed: entries.contains { $0.name == IgnoreList.fileName && $0.kind == .file }, logger: logger)
        if !ignores.isEmpty {
            entries.removeAll { entry in
                guard ignores.excludes(entry.name) else { return false }
                logger.info("Skipping \"\(StoragePath.join(path, entry.name))\": listed in \(IgnoreList.fileName)")
                return true
            }
        }
        for file in entries where file.kind == .file && LibraryPlaylist.isPlaylist(file.name) {
            pending.playlists.append(LibraryPlaylist(name: file.name, modified: file.modified))
            if PendingCue.isSheet(file.name), let sheet = readCue(file, in: path) { pending.cues.append(sheet) }
        }
        for file in entries
        where file.kind == .file && !registry.supports(file.name) && file.name != IgnoreList.fileName && !LibraryPlaylist.isPlaylist(file.name) {
            logger.info("Skipping \"\(StoragePath.join(path, file.name))\": not a format Nimbus plays")
        }
        let files = Dictionary(
            entries.filter { $0.kind == .file && registry.supports($0.name) }.map { ($0.name, $0) },
            uniquingKeysWith: { first, _ in first })
        var seen = Set<String>()
        for song in old?.songs ?? [] {
            guard let file = files[song.name] else { continue }
            seen.insert(song.name)
            pending.songs.append(decide(song, file: file, path: path, plan: plan))
        }
        for file in entries where file.kind == .file && files[file.name] != nil && !seen.contains(file.name) {
            seen.insert(file.name)
            pending.songs.append(decide(nil, file: file, path: path, plan: plan))
        }
        let lineage = ancestors + (entry?.identity.map { [$0] } ?? [])
        // Remote folders have no inode to detect loops with (a server following a symbolic
        // link loop); no real library is this deep.
        if path.split(separator: "/").count >= Self.maximumDepth {
            logger.warning("Skipping folders below \"\(path)\": deeper than \(Self.maximumDepth) levels")
            return pending
        }
        for child in entries where child.kind == .directory {
            if let identity = child.identity, lineage.contains(identity) {
                logger.info("Skipping \"\(StoragePath.join(path, child.name))\": symbolic link loop")
                continue
            }
            pending.directories.append(
                walk(
                    old: old?.directory(named: child.name), path: StoragePath.join(path, child.name), name: child.name,
                    entry: child, ancestors: lineage, ignores: ignores, plan: plan))
        }
        return pending
    }

    private func decide(_ existing: LibrarySong?, file: StorageEntry, path: String, plan: Plan) -> PendingSong {
        if let existing, existing.modified == file.modified, !rescan {
            if existing.size == file.size { return .ready(existing) }
            // A database from before sizes were kept: the listing brings it, no scan needed.
            if existing.size == 0 { return .ready(existing.sized(file.size)) }
        }
        plan.tasks.append((StoragePath.join(path, file.name), file, existing?.added))
        return .scan(plan.tasks.count - 1)
    }

    private func scan(_ plan: Plan) {
        plan.prepareResults()
        let storage = self.storage, registry = self.registry, logger = self.logger
        // Remote files are scanned over the network, where waiting for round trips, not the
        // CPU, is the cost: more of them at once, up to what the fetcher runs in parallel.
        let remote = plan.tasks.contains { storage.localPath($0.path) == nil }
        let now = Int64(time(nil))
        WorkerThreads.run(count: plan.tasks.count, threads: remote ? max(threads, 8) : threads, name: "update", priority: .background) { index in
            let (path, entry, added) = plan.tasks[index]
            let scanned = Self.scanFile(path: path, entry: entry, added: added ?? now, storage: storage, registry: registry, logger: logger)
            plan.results[index] = scanned?.song
            plan.embeddedCues[index] = scanned?.embeddedCue ?? false
        }
    }

    static func scanFile(
        path: String, entry: StorageEntry, added: Int64, storage: any Storage, registry: DecoderRegistry, logger: Logger
    )
        -> (song: LibrarySong, embeddedCue: Bool)?
    {
        guard let plugin = registry.plugin(forPath: path) else { return nil }
        // The listing's own tags (a feed's) with their duration: nothing to read.
        if let known = entry.tag, known.duration != nil {
            logger.info("added \(path)")
            return (LibrarySong.make(name: entry.name, modified: entry.modified, added: added, format: nil, tag: known, size: entry.size), false)
        }
        do {
            let stream = try storage.open(path, purpose: .indexing)
            let result = try plugin.scan(stream, options: ScanOptions())
            logger.info("added \(path)")
            var tag = result.tag
            if var known = entry.tag {
                // The listing's tags win; the file gives what the listing lacked (its length).
                known.duration = known.duration ?? tag.duration
                tag = known
            }
            let song = LibrarySong.make(name: entry.name, modified: entry.modified, added: added, format: result.format, tag: tag, size: entry.size)
            return (song, result.cueSheet.map { !CueSheet.tracks(Array($0.utf8)).isEmpty } ?? false)
        } catch let error as DecoderError {
            logger.warning("Skipping \"\(path)\": \(error.message)")
        } catch {
            logger.warning("Skipping \"\(path)\": \(error)")
        }
        return nil
    }

    private func materialize(_ pending: PendingDirectory, plan: Plan) -> LibraryDirectory? {
        materializeNoting(pending, plan: plan).directory
    }

    /// The directory as it is now, and whether it differs from what the database had. An
    /// unchanged folder is the old one itself, not re-sorted: an update that finds nothing
    /// new builds nothing (MPD's no-change update is a walk and `stat`s, so is this).
    private func materializeNoting(_ pending: PendingDirectory, plan: Plan) -> (directory: LibraryDirectory?, changed: Bool) {
        if let kept = pending.kept { return (kept, false) }
        var directory = LibraryDirectory(
            name: pending.name, modified: pending.modified, identity: pending.identity, playlists: pending.playlists)
        var changed = false
        for song in pending.songs {
            switch song {
            case .ready(let existing):
                directory.songs.append(existing)
                // A file unchanged keeps the sheet it carries (MPD lists it as a playlist too).
                if let carried = pending.old?.playlists.first(where: { existing.hasName($0.name) }) { directory.playlists.append(carried) }
            case .scan(let index):
                changed = true
                guard let scanned = plan.results[index] else { continue }
                directory.songs.append(plan.pool.kept(scanned))
                if plan.embeddedCues[index] { directory.playlists.append(LibraryPlaylist(name: scanned.name, modified: .min)) }
            }
        }
        for child in pending.directories {
            let (materialized, childChanged) = materializeNoting(child, plan: plan)
            if childChanged || (materialized == nil) != (child.old == nil) { changed = true }
            if let materialized { directory.directories.append(materialized) }
        }
        for sheet in pending.cues {
            let old = pending.old?.directory(named: sheet.name)
            guard let made = cueDirectory(sheet, songs: directory.songs, path: pending.name, old: old) else {
                if old != nil { changed = true }
                continue
            }
            if old.map({ $0 != made }) ?? true { changed = true }
            directory.directories.append(old.flatMap { $0 == made ? $0 : nil } ?? made)
        }
        if !changed, let old = pending.old, old.modified == directory.modified, old.identity == directory.identity,
            old.songs.count == directory.songs.count, zip(old.songs, directory.songs).allSatisfy({ $0 === $1 }),
            old.directories.count == directory.directories.count, old.playlists == directory.playlists
        {
            return (old.isEmpty ? nil : old, false)
        }
        directory.sortContents()
        return (directory.isEmpty ? nil : directory, true)
    }
}
