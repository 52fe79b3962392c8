import Foundation
import NimbusSupport
import Synchronization

/// Each user's phone queue (`savePlayQueue`): the songs, the one playing and where in it, so
/// a phone picks up on another phone — or after the box restarted — where it left off. Kept
/// by URI (the ids are made from them), in one JSON file beside the state file, written
/// atomically on every save; a file that cannot be read is logged and set aside, not trusted.
public final class SubsonicPlayQueues: Sendable {
    public struct Queue: Codable, Sendable, Equatable {
        public var uris: [String]
        /// Index into `uris` of the song playing; nil: none.
        public var current: Int?
        /// Milliseconds into it.
        public var position: Int64
        public var changed: Int64
        /// The client (`c=`) that saved it.
        public var changedBy: String
    }

    private let file: String?
    private let logger: Logger
    private let queues: Mutex<[String: Queue]>
    /// The largest queue kept per user (a phone's "play all" of a big library).
    public static let limit = 50_000

    public init(file: String?, logger: Logger) {
        self.file = file
        self.logger = logger
        var loaded: [String: Queue] = [:]
        if let file {
            do {
                if let bytes = try AtomicFile.read(file) {
                    loaded = try JSONDecoder().decode([String: Queue].self, from: Data(bytes))
                }
            } catch {
                logger.error("\(file): \(error); the phones' saved queues start empty (the file is kept as \(file).bad)")
                _ = rename(file, file + ".bad")
            }
        }
        queues = Mutex(loaded)
    }

    public func queue(of user: String) -> Queue? { queues.withLock { $0[user] } }

    /// Saves (or, with no songs, forgets) a user's queue; a message when the file cannot be
    /// written, the previous queue then kept.
    public func save(_ queue: Queue?, for user: String) -> String? {
        queues.withLock { queues in
            var next = queues
            next[user] = queue
            if let file {
                do {
                    let bytes = try JSONEncoder().encode(next)
                    try AtomicFile.write(Array(bytes), to: file, mode: 0o600)
                } catch {
                    logger.error("\(file): cannot save the phones' queues: \(error)")
                    return "Cannot save the play queue"
                }
            }
            queues = next
            return nil
        }
    }
}
