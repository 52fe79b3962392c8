import Foundation
import NimbusSupport
import Synchronization

/// The measurements of every song, keyed by URI, kept beside the database (`db_file` +
/// `.analysis`) rather than in it: an update or a rescan rewrites the database, and a
/// measurement stays valid exactly as long as the file's modification time is the one it was
/// taken at — no update needs to carry it. Written atomically, as every persisted file.
public final class AnalysisStore: Sendable {
    public let path: String?
    private let entries: Mutex<[String: SongLoudness]>
    private let dirty = Atomic<Bool>(false)

    /// Reads `path` if it exists; a damaged file is reported through `problem` and set aside
    /// (the songs are measured again), never a reason not to start.
    public init(path: String?, problem: (String) -> Void = { _ in }) {
        self.path = path
        var loaded: [String: SongLoudness] = [:]
        if let path, let bytes = try? AtomicFile.read(path) {
            do {
                loaded = try JSONDecoder().decode([String: SongLoudness].self, from: Data(bytes))
            } catch {
                problem("\(path) is damaged (\(error)); its songs will be measured again")
                rename(path, path + ".corrupt")
            }
        }
        entries = Mutex(loaded)
    }

    public var count: Int { entries.withLock { $0.count } }

    /// The measurement of `uri` if it was taken of the file as it is now.
    public func loudness(of uri: String, modified: Int64?) -> SongLoudness? {
        entries.withLock { all in
            guard let entry = all[uri], modified == nil || entry.modified == modified else { return nil }
            return entry
        }
    }

    public func set(_ uri: String, _ loudness: SongLoudness) {
        entries.withLock { $0[uri] = loudness }
        dirty.store(true, ordering: .relaxed)
    }

    /// Forgets songs no longer in the library.
    public func keep(only uris: Set<String>) {
        let removed = entries.withLock { all -> Bool in
            let before = all.count
            all = all.filter { uris.contains($0.key) }
            return all.count != before
        }
        if removed { dirty.store(true, ordering: .relaxed) }
    }

    /// Writes the file if anything changed since the last save.
    public func save() throws(SystemError) {
        guard let path, dirty.exchange(false, ordering: .relaxed) else { return }
        let snapshot = entries.withLock { $0 }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        guard let data = try? encoder.encode(snapshot) else { return }
        try AtomicFile.write(Array(data), to: path)
    }
}
