import Foundation
import NimbusSupport

/// What a user keeps offline: a folder of an account (everything below it, also songs a later
/// `update` finds), one song, or a stored playlist (its cloud songs, following its edits).
public struct Pin: Codable, Sendable, Equatable {
    public enum Kind: String, Codable, Sendable { case folder, song, playlist }

    public var kind: Kind
    /// A database URI (`yadisk/Albums/Kind of Blue`), or the playlist's name.
    public var name: String
    public var paused: Bool
    /// Seconds since 1970.
    public var added: Int64
    /// From a `pin` line of the config: listed like the others, removed only there.
    public var configured: Bool

    public init(kind: Kind, name: String, paused: Bool = false, added: Int64 = Int64(Date().timeIntervalSince1970), configured: Bool = false) {
        self.kind = kind
        self.name = name
        self.paused = paused
        self.added = added
        self.configured = configured
    }

    public var id: ID { ID(playlist: kind == .playlist, name: name) }

    /// Folders and songs share the URI space; playlists have their own names.
    public struct ID: Hashable, Sendable {
        public let playlist: Bool
        public let name: String
        public init(playlist: Bool, name: String) {
            self.playlist = playlist
            self.name = name
        }
    }

    private enum CodingKeys: String, CodingKey { case kind, name, paused, added }

    public init(from decoder: any Decoder) throws {
        let values = try decoder.container(keyedBy: CodingKeys.self)
        kind = try values.decode(Kind.self, forKey: .kind)
        name = try values.decode(String.self, forKey: .name)
        paused = try values.decodeIfPresent(Bool.self, forKey: .paused) ?? false
        added = try values.decodeIfPresent(Int64.self, forKey: .added) ?? 0
        configured = false
    }
}

/// The pins made at run time, in one small JSON file replaced atomically (config pins are
/// not written: the config says them every start). A file that cannot be read is kept aside
/// and named in the log, never overwritten silently.
struct PinFile {
    let path: String
    let logger: Logger

    func load() -> [Pin] {
        guard let bytes = (try? AtomicFile.read(path)) ?? nil else { return [] }
        do {
            return try JSONDecoder().decode([Pin].self, from: Data(bytes))
        } catch {
            let aside = path + ".corrupt"
            _ = rename(path, aside)
            logger.error("offline pins file \(path) cannot be read (\(error)); kept as \(aside), starting without pins")
            return []
        }
    }

    func save(_ pins: [Pin]) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        do {
            try AtomicFile.write(Array(try encoder.encode(pins.filter { !$0.configured })), to: path)
        } catch {
            logger.error("cannot save offline pins to \(path): \(error)")
        }
    }
}
